import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  PetNotFoundError,
  PetVersionMismatchError,
  StoreUnavailableError,
} from '#shared/domain/errors';
import { HttpError } from '#shared/http/http-error';

const packageOf = (error: Error): unknown => (error.cause as { package?: unknown } | undefined)?.package;

const unavailable = (cause: unknown): HttpError =>
  new HttpError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry shortly', { cause });

export const invalidJson = (cause?: unknown): HttpError =>
  new HttpError('INVALID_JSON', 'Request body is not valid JSON', { cause });

/** The one place mapping a thrown value to an HTTP error: by class or middy's `cause.package`. */
export const toHttpError = (error: unknown): HttpError => {
  if (error instanceof HttpError) return error;
  if (error instanceof PetNotFoundError) return new HttpError('NOT_FOUND', error.message);
  if (error instanceof PetVersionMismatchError) {
    return new HttpError(
      'PRECONDITION_FAILED',
      `${error.message}: If-Match names none of its current ETag, or If-None-Match names it; read it again (GET) for its ETag`,
      { cause: error },
    );
  }
  if (error instanceof StoreUnavailableError) return unavailable(error);
  if (error instanceof IdempotencyKeyInUseError) {
    return new HttpError(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still in progress; retry after Retry-After seconds to get its answer',
      { cause: error },
    );
  }
  if (error instanceof IdempotencyKeyReusedError) {
    return new HttpError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was already used with another request body; send a new key for a new request',
      { cause: error },
    );
  }
  if (error instanceof Error) {
    // middy gives up shortly before the Lambda timeout, so the client gets an answer, not a 502.
    if (packageOf(error) === '@middy/core') return unavailable(error);
  }
  return new HttpError('INTERNAL_ERROR', 'An internal error occurred', { cause: error });
};
