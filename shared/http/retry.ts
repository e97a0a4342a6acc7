import type { ErrorCode } from '#shared/http/error-body';

/** Seconds a client should wait before retrying an answer that says "not now". */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The codes that mean "not now, later": each is sent with `Retry-After`, wherever it comes from.
 * A 409 IDEMPOTENCY_KEY_IN_USE is one: retried after the first request ends, it gets its answer.
 */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set([
  'TOO_MANY_REQUESTS',
  'SERVICE_UNAVAILABLE',
  'IDEMPOTENCY_KEY_IN_USE',
]);

/** `Retry-After` for an error that a client should retry, nothing otherwise. */
export const retryHeaders = (code: ErrorCode): Readonly<Record<string, string>> =>
  RETRYABLE.has(code) ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : {};
