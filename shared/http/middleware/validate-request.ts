import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as v from 'valibot';
import { type ErrorDetail, shownDetails } from '#shared/http/error-body';
import { HttpError } from '#shared/http/http-error';
import { QUERY_PARAMETERS } from '#shared/http/params';
import type { RequestParts } from '#shared/operations/operation';

type Part = keyof RequestParts;

export type RawRequest = Partial<Record<Part, unknown>>;

const valueAt = (data: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (value, key) =>
      value !== null && typeof value === 'object' && Object.hasOwn(value, key)
        ? (value as Record<PropertyKey, unknown>)[key]
        : undefined,
    data,
  );

/** One detail per field at fault (its first problem), `part.field`; a field the request lacks `is required`. */
const toDetails = (issues: readonly v.BaseIssue<unknown>[], raw: RawRequest): ErrorDetail[] => {
  const details = issues.map((issue): ErrorDetail => {
    const path = issue.path?.map((item) => item.key as PropertyKey) ?? [];
    const field = path.map(String).join('.');
    return { field, message: valueAt(raw, path) === undefined ? 'is required' : issue.message };
  });
  const seen = new Set<string>();
  return details.filter((detail) => !seen.has(detail.field) && seen.add(detail.field));
};

/** A 400 listing the first 10 problems, and how many more there are (1,500 unknown fields get a small answer). */
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

export const rawRequest = (event: APIGatewayProxyEvent, parts: RequestParts): RawRequest => {
  const raw: RawRequest = {};
  if (parts.query) raw.query = singleValuedQuery(event);
  if (parts.path) raw.path = { ...event.pathParameters };
  if (parts.headers) raw.headers = { ...event.headers };
  if (parts.body) raw.body = event.body;
  return raw;
};

const BODY_NOT_AN_OBJECT = 'must be a JSON object';

const isJsonObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A whole request's schema; a body must be an object first, as valibot's object schemas take arrays. */
export const requestSchema = ({ body, ...others }: RequestParts) => {
  const entries: v.ObjectEntries = {};
  for (const [part, schema] of Object.entries(others)) if (schema) entries[part] = schema;
  if (body) entries.body = v.pipe(v.custom(isJsonObject, BODY_NOT_AN_OBJECT), body);
  return v.object(entries);
};

/** The raw parts parsed, or one 400 `VALIDATION_FAILED` listing every field at fault. */
export const parseRequest = <S extends v.GenericSchema>(schema: S, raw: RawRequest): v.InferOutput<S> => {
  const result = v.safeParse(schema, raw);
  if (!result.success) throw validationFailed(toDetails(result.issues, raw));
  return result.output;
};

/** Every query parameter of an operation that reads none is unknown (`POST /pets?status=sold` must not pass). */
const refuseAnyQuery = (event: APIGatewayProxyEvent): void => {
  const names = Object.keys({ ...event.multiValueQueryStringParameters, ...event.queryStringParameters });
  if (names.length > 0) {
    throw validationFailed(
      names.map((name) => ({ field: `query.${name}`, message: QUERY_PARAMETERS.unknownKey })),
    );
  }
};

/** The reader of an operation's request: the parts `parts` names, validated and parsed, for its handler. */
export const requestReader = <I>(parts: RequestParts): ((event: APIGatewayProxyEvent) => I) => {
  const schema = requestSchema(parts);
  return (event) => {
    if (!parts.query) refuseAnyQuery(event);
    return parseRequest(schema, rawRequest(event, parts)) as I;
  };
};
