import { PetNotFoundError, StoreUnavailableError } from '#shared/domain/errors';
import { HttpError } from '#shared/http/http-error';

const fromPackage = (error: Error, name: string): boolean =>
  (error.cause as { package?: unknown } | undefined)?.package === name;

/** Seconds a client should wait before retrying after a 503. */
export const RETRY_AFTER_SECONDS = 1;

const unavailable = (cause: unknown): HttpError =>
  new HttpError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry shortly', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    cause,
  });

/**
 * The one place that decides which HTTP error any thrown value becomes. Errors meant for the
 * client keep their message; anything else becomes a generic 500 whose cause is only logged.
 */
export const toHttpError = (error: unknown): HttpError => {
  if (error instanceof HttpError) return error;
  if (error instanceof PetNotFoundError) return new HttpError('NOT_FOUND', error.message);
  if (error instanceof StoreUnavailableError) return unavailable(error);
  if (error instanceof Error) {
    if (fromPackage(error, '@middy/http-json-body-parser')) {
      return error.message === 'Unsupported Media Type'
        ? new HttpError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json', { cause: error })
        : new HttpError('INVALID_JSON', 'Request body is not valid JSON', { cause: error });
    }
    // middy gives up shortly before the Lambda timeout, so the client gets an answer, not a 502.
    if (error.name === 'TimeoutError' && fromPackage(error, '@middy/core')) return unavailable(error);
  }
  return new HttpError('INTERNAL_ERROR', 'An internal error occurred', { cause: error });
};
