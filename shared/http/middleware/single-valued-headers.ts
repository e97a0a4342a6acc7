import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerValues } from '#shared/http/headers';
import { HttpError } from '#shared/http/http-error';
import { validationFailed } from '#shared/http/middleware/validate-request';

/**
 * Refuses a request that repeats a header which must come once, whatever the case of its names,
 * rather than picking one of the values: two `Authorization` headers are a 401, two
 * `Content-Type` headers a 400. Runs before the header normalizer, which would keep only one.
 */
export const singleValuedHeaders = (): middy.MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    if (headerValues(event, 'authorization').length > 1) {
      throw new HttpError('UNAUTHORIZED', 'Send the API key in one Authorization header');
    }
    if (headerValues(event, 'content-type').length > 1) {
      throw validationFailed([{ field: 'headers.content-type', message: 'must be given once' }]);
    }
  },
});
