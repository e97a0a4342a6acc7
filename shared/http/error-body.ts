import * as z from 'zod/mini';
import { describe } from '#shared/domain/pet';

/**
 * Every error code the API can return, with the HTTP status it always travels with. The Error
 * object's `status` equals that status. API Gateway's own responses (infra) use the same table.
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const ErrorDetail = describe(
  z.object({
    field: describe(z.string(), { description: 'Where the problem is, e.g. `body.name` or `query.limit`.' }),
    message: z.string(),
  }),
  { id: 'ErrorDetail' },
);
export type ErrorDetail = z.infer<typeof ErrorDetail>;

export const ErrorBody = describe(
  z.object({
    code: describe(z.enum(ERROR_CODES), { description: 'Machine-readable error code.' }),
    message: describe(z.string(), { description: 'Human-readable description.' }),
    status: describe(z.int().check(z.minimum(400), z.maximum(599)), {
      description: 'The HTTP status code of the response.',
    }),
    details: describe(z.optional(z.array(ErrorDetail)), { description: 'Per-field problems of a 400.' }),
    requestId: describe(z.optional(z.string()), { description: 'Identifier of the request, for support.' }),
  }),
  { id: 'Error', description: 'Returned with every failure, as `application/json`.' },
);
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Builds the Error object for a code; `status` always comes from the table above. */
export const errorBody = (
  code: ErrorCode,
  message: string,
  extra: Pick<ErrorBody, 'details' | 'requestId'> = {},
): ErrorBody => ({ code, message, status: ERROR_STATUS[code], ...extra });
