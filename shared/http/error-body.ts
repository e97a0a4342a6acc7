import type { ErrorBody, ErrorDetail } from '#shared/http/error-schema';

/** Their schema (error-schema.ts) stays out of the functions' bundles. */
export type { ErrorBody, ErrorDetail };

/** Every error code the API can return, with the one HTTP status it travels with (the body's `status`). */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  EXPECTATION_FAILED: 417,
  IDEMPOTENCY_KEY_REUSED: 422,
  TOO_MANY_REQUESTS: 429,
  QUOTA_EXCEEDED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503,
  HTTP_VERSION_NOT_SUPPORTED: 505,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** What the local server's HTTP layer refuses before any route; no function ever sends or counts one. */
export const HTTP_LAYER_CODES: readonly ErrorCode[] = [
  'REQUEST_TIMEOUT',
  'EXPECTATION_FAILED',
  'HEADERS_TOO_LARGE',
  'NOT_IMPLEMENTED',
  'HTTP_VERSION_NOT_SUPPORTED',
];

/** How much of a request an Error echoes, so that no request, however hostile, gets a large answer. */
export const ERROR_LIMITS = {
  details: 10,
  fieldLength: 64,
  detailMessageLength: 200,
  messageLength: 1_000,
  bytes: 4 * 1024,
} as const;

/** `text` cut to `length` characters (code points, so no surrogate pair is split), ending in `…`. */
export const truncate = (text: string, length: number): string => {
  const characters = Array.from(text);
  return characters.length <= length ? text : `${characters.slice(0, length - 1).join('')}…`;
};

export const shownDetails = (details: readonly ErrorDetail[]): ErrorDetail[] =>
  details.slice(0, ERROR_LIMITS.details).map((detail) => ({
    field: truncate(detail.field, ERROR_LIMITS.fieldLength),
    message: truncate(detail.message, ERROR_LIMITS.detailMessageLength),
  }));

const byteLength = (body: ErrorBody): number => Buffer.byteLength(JSON.stringify(body));

/** The Error object within ERROR_LIMITS; over 4 KiB of JSON, details go last first, then half the message. */
export const errorBody = (
  code: ErrorCode,
  message: string,
  extra: Pick<ErrorBody, 'details' | 'requestId'> = {},
): ErrorBody => {
  const body: ErrorBody = {
    code,
    message: truncate(message, ERROR_LIMITS.messageLength),
    status: ERROR_STATUS[code],
    ...(extra.details ? { details: shownDetails(extra.details) } : {}),
    ...(extra.requestId === undefined ? {} : { requestId: truncate(extra.requestId, 128) }),
  };
  while (byteLength(body) > ERROR_LIMITS.bytes) {
    if (body.details && body.details.length > 1) body.details.pop();
    else body.message = truncate(body.message, Math.ceil(Array.from(body.message).length / 2));
  }
  return body;
};
