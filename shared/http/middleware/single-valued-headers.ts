import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerValues } from '#shared/http/headers';
import { HttpError } from '#shared/http/http-error';
import { validationFailed } from '#shared/http/middleware/validate-request';

/** Refuses a repeated header rather than pick one; runs before the header normalizer, which keeps one. */
export const singleValuedHeaders = (names: readonly string[]): middy.MiddlewareObj<APIGatewayProxyEvent> => {
  const once = [...new Set(['content-type', ...names.map((name) => name.toLowerCase())])];
  return {
    before: ({ event }) => {
      if (headerValues(event, 'authorization').length > 1) {
        throw new HttpError('UNAUTHORIZED', 'Send the API key in one Authorization header');
      }
      const repeated = once.filter((name) => headerValues(event, name).length > 1);
      if (repeated.length > 0) {
        throw validationFailed(
          repeated.map((name) => ({ field: `headers.${name}`, message: 'must be given once' })),
        );
      }
    },
  };
};
