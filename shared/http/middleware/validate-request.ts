import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { ErrorDetail } from '#shared/http/error-body';
import { HttpError } from '#shared/http/http-error';
import type { RequestSchema } from '#shared/http/request-schemas';

/** The event after validation: `input` holds the parsed, typed request parts. */
export type ValidatedEvent<S extends RequestSchema> = APIGatewayProxyEvent & { input: z.output<S> };

type Part = 'query' | 'path' | 'body';

const valueAt = (data: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (value, key) =>
      value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined,
    data,
  );

/** One detail per field at fault (its first problem), named `part.field`; unknown keys one by one. */
export const toDetails = (error: z.core.$ZodError, parts: Record<string, unknown>): ErrorDetail[] => {
  const details = error.issues.flatMap((issue): ErrorDetail[] => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: `${field}.${key}`, message: issue.message }));
    }
    if (issue.code === 'invalid_type' && valueAt(parts, issue.path) === undefined) {
      return [{ field, message: 'is required' }];
    }
    return [{ field, message: issue.message }];
  });
  return details.filter(
    (detail, index) => details.findIndex((other) => other.field === detail.field) === index,
  );
};

/** Query parameters, each required to appear at most once (`?limit=1&limit=2` is an error). */
const singleValuedQuery = (event: APIGatewayProxyEvent): Record<string, string> => {
  const multi = event.multiValueQueryStringParameters ?? {};
  const repeated = Object.keys(multi).filter((name) => (multi[name]?.length ?? 0) > 1);
  if (repeated.length > 0) {
    throw validationFailed(
      repeated.map((name) => ({ field: `query.${name}`, message: 'must be given once' })),
    );
  }
  return { ...(event.queryStringParameters ?? {}) } as Record<string, string>;
};

const validationFailed = (details: ErrorDetail[]): HttpError =>
  new HttpError(
    'VALIDATION_FAILED',
    `Invalid request: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
    {
      details,
    },
  );

const partOf = (event: APIGatewayProxyEvent, part: Part): unknown => {
  switch (part) {
    case 'query':
      return singleValuedQuery(event);
    case 'path':
      return { ...(event.pathParameters ?? {}) };
    case 'body':
      return event.body;
  }
};

/**
 * Validates the parts of the request that the schema names and puts the parsed result on
 * `event.input`; any problem becomes one 400 `VALIDATION_FAILED` listing every field at fault.
 */
export const validateRequest = <S extends RequestSchema>(
  schema: S,
): middy.MiddlewareObj<APIGatewayProxyEvent> => {
  const parts = Object.keys(schema.shape) as Part[];
  return {
    before: (request) => {
      const raw = Object.fromEntries(parts.map((part) => [part, partOf(request.event, part)]));
      const result = schema.safeParse(raw);
      if (!result.success) throw validationFailed(toDetails(result.error, raw));
      (request.event as ValidatedEvent<S>).input = result.data;
    },
  };
};
