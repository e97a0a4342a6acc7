import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import type { ErrorDetail } from '#shared/http/error-body';
import { HttpError } from '#shared/http/http-error';
import type { RequestParts } from '#shared/operations/operation';

type Part = keyof RequestParts;

/** The raw request, part by part, as validation sees it. */
export type RawRequest = Partial<Record<Part, unknown>>;

const valueAt = (data: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (value, key) =>
      value !== null && typeof value === 'object' && Object.hasOwn(value, key)
        ? (value as Record<PropertyKey, unknown>)[key]
        : undefined,
    data,
  );

/** One detail per field at fault (its first problem), named `part.field`; unknown keys one by one. */
export const toDetails = (error: z.core.$ZodError, raw: RawRequest): ErrorDetail[] => {
  const details = error.issues.flatMap((issue): ErrorDetail[] => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: `${field}.${key}`, message: issue.message }));
    }
    if (issue.code === 'invalid_type' && valueAt(raw, issue.path) === undefined) {
      return [{ field, message: 'is required' }];
    }
    return [{ field, message: issue.message }];
  });
  return details.filter(
    (detail, index) => details.findIndex((other) => other.field === detail.field) === index,
  );
};

export const validationFailed = (details: ErrorDetail[]): HttpError =>
  new HttpError(
    'VALIDATION_FAILED',
    `Invalid request: ${details.map((detail) => `${detail.field} ${detail.message}`).join('; ')}`,
    { details },
  );

/** Query parameters, each required to appear at most once (`?limit=1&limit=2` is an error). */
const singleValuedQuery = (event: APIGatewayProxyEvent): Record<string, string | undefined> => {
  const multi = event.multiValueQueryStringParameters ?? {};
  const repeated = Object.keys(multi).filter((name) => (multi[name]?.length ?? 0) > 1);
  if (repeated.length > 0) {
    throw validationFailed(
      repeated.map((name) => ({ field: `query.${name}`, message: 'must be given once' })),
    );
  }
  return { ...event.queryStringParameters };
};

/** The parts of an event that `parts` names, as plain data. */
export const rawRequest = (event: APIGatewayProxyEvent, parts: RequestParts): RawRequest => {
  const raw: RawRequest = {};
  if (parts.query) raw.query = singleValuedQuery(event);
  if (parts.path) raw.path = { ...event.pathParameters };
  if (parts.headers) raw.headers = { ...event.headers };
  if (parts.body) raw.body = event.body;
  return raw;
};

/** The schema of a whole request: one object with a key per part. */
export const requestSchema = <P extends RequestParts>(parts: P) =>
  z.object({ ...parts } as { [K in keyof P]-?: Exclude<P[K], undefined> });

/**
 * Parses the raw parts with the request schema; any problem becomes one 400 `VALIDATION_FAILED`
 * listing every field at fault.
 */
export const parseRequest = <S extends z.ZodMiniType>(schema: S, raw: RawRequest): z.output<S> => {
  const result = schema.safeParse(raw);
  if (!result.success) throw validationFailed(toDetails(result.error, raw));
  return result.data;
};

/** Validates the parts of the request that `parts` names and puts the result on `event.input`. */
export const validateRequest = (parts: RequestParts): middy.MiddlewareObj<APIGatewayProxyEvent> => {
  const schema = requestSchema(parts);
  return {
    before: (request) => {
      const input = parseRequest(schema, rawRequest(request.event, parts));
      Object.assign(request.event, { input });
    },
  };
};
