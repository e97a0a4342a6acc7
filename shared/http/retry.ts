import type { ErrorCode } from '#shared/http/error-body';

/** Seconds a client should wait before retrying an answer that says "not now". */
export const RETRY_AFTER_SECONDS = 1;

/** The codes that mean "not now, later": each is sent with `Retry-After`, wherever it comes from. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['TOO_MANY_REQUESTS', 'SERVICE_UNAVAILABLE']);

/** `Retry-After` for an error that a client should retry, nothing otherwise. */
export const retryHeaders = (code: ErrorCode): Readonly<Record<string, string>> =>
  RETRYABLE.has(code) ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : {};
