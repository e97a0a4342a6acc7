import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as v from 'valibot';
import { type ErrorDetail, shownDetails } from '#shared/http/error-body';
import { HttpError } from '#shared/http/http-error';
import { QUERY_PARAMETERS } from '#shared/http/params';
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

/**
 * One detail per field at fault (its first problem), named `part.field`; each unknown key is an
 * issue of its own (shared/schema/objects.ts). A field the request lacks `is required`, whatever
 * its schema would say of no value.
 */
const toDetails = (issues: readonly v.BaseIssue<unknown>[], raw: RawRequest): ErrorDetail[] => {
  const details = issues.map((issue): ErrorDetail => {
    const path = issue.path?.map((item) => item.key as PropertyKey) ?? [];
    const field = path.map(String).join('.');
    return { field, message: valueAt(raw, path) === undefined ? 'is required' : issue.message };
  });
  const seen = new Set<string>();
  return details.filter((detail) => !seen.has(detail.field) && seen.add(detail.field));
};

/**
 * A 400 listing the problems: the first 10 in `details` and in the message, which says how many
 * more there are (a body of 1,500 unknown fields gets a small answer, not 130 kB).
 */
export const validationFailed = (details: readonly ErrorDetail[]): HttpError => {
  const shown = shownDetails(details);
  const more = details.length - shown.length;
  const listed = shown.map((detail) => `${detail.field} ${detail.message}`).join('; ');
  return new HttpError(
    'VALIDATION_FAILED',
    `Invalid request: ${listed}${more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : ''}`,
    { details: shown },
  );
};

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

/** What a request body that is not a JSON object (an array, a string, null…) is told. */
const BODY_NOT_AN_OBJECT = 'must be a JSON object';

const isJsonObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The schema of a whole request: one object with a key per part the operation reads. A body must
 * be a JSON object before its own schema reads it: valibot's object schemas would take an array
 * for an object. Its output is each part's output, which a handler receives typed from the same
 * schemas (RequestInput).
 */
export const requestSchema = ({ body, ...others }: RequestParts) => {
  const entries: v.ObjectEntries = {};
  for (const [part, schema] of Object.entries(others)) if (schema) entries[part] = schema;
  if (body) entries.body = v.pipe(v.custom(isJsonObject, BODY_NOT_AN_OBJECT), body);
  return v.object(entries);
};

/**
 * Parses the raw parts with the request schema; any problem becomes one 400 `VALIDATION_FAILED`
 * listing every field at fault.
 */
export const parseRequest = <S extends v.GenericSchema>(schema: S, raw: RawRequest): v.InferOutput<S> => {
  const result = v.safeParse(schema, raw);
  if (!result.success) throw validationFailed(toDetails(result.issues, raw));
  return result.output;
};

/**
 * The query parameters of an operation that reads none: each is unknown, and refused like an
 * unknown one of an operation that reads some (`POST /pets?status=sold` must not pass for a
 * request that set a status).
 */
const refuseAnyQuery = (event: APIGatewayProxyEvent): void => {
  const names = Object.keys({ ...event.multiValueQueryStringParameters, ...event.queryStringParameters });
  if (names.length > 0) {
    throw validationFailed(
      names.map((name) => ({ field: `query.${name}`, message: QUERY_PARAMETERS.unknownKey })),
    );
  }
};

/**
 * The reader of an operation's request: validates the parts that `parts` names and returns them
 * parsed, for the endpoint to hand its handler as an argument. A part with no schema must be
 * absent where a client could send it by mistake: an operation without a query schema refuses any
 * query parameter.
 */
export const requestReader = <I>(parts: RequestParts): ((event: APIGatewayProxyEvent) => I) => {
  const schema = requestSchema(parts);
  return (event) => {
    if (!parts.query) refuseAnyQuery(event);
    return parseRequest(schema, rawRequest(event, parts)) as I;
  };
};
