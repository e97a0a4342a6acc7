import type { ErrorCode } from '#shared/http/error-body';

/** Seconds a client should wait before retrying an answer that says "not now". */
export const RETRY_AFTER_SECONDS = 1;

/** After a spent quota, an hour: a gateway response, a fixed answer, cannot compute the next reset. */
export const QUOTA_RETRY_AFTER_SECONDS = 3_600;

/** The codes that mean "not now, later", each sent with `Retry-After` wherever it comes from. */
const RETRY_AFTER: Readonly<Partial<Record<ErrorCode, number>>> = {
  TOO_MANY_REQUESTS: RETRY_AFTER_SECONDS,
  QUOTA_EXCEEDED: QUOTA_RETRY_AFTER_SECONDS,
  SERVICE_UNAVAILABLE: RETRY_AFTER_SECONDS,
  IDEMPOTENCY_KEY_IN_USE: RETRY_AFTER_SECONDS,
};

export const retryHeaders = (code: ErrorCode): Readonly<Record<string, string>> => {
  const seconds = RETRY_AFTER[code];
  return seconds === undefined ? {} : { 'Retry-After': String(seconds) };
};
