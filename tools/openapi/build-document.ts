import { readFileSync } from 'node:fs';
import type { JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { CONTRACTS } from '#functions/operations';
import { OUTPUT } from '#infra/outputs';
import { stackName } from '#infra/stage-names';
import { ALL_SCOPES, SCOPES } from '#shared/auth/scopes';
import { StoreUnavailableError } from '#shared/domain/errors';
import { deprecationHeaders } from '#shared/http/deprecation';
import { ERROR_STATUS, errorBody } from '#shared/http/error-body';
import { invalidJson } from '#shared/http/error-mapper';
import { ErrorBody } from '#shared/http/error-schema';
import { type GatewayResponseType, methodNotAllowed } from '#shared/http/gateway-behaviour';
import { MAX_BODY_BYTES } from '#shared/http/limits';
import { checkBody } from '#shared/http/middleware/json-body';
import { parseRequest, requestSchema } from '#shared/http/middleware/validate-request';
import { decodedIntegerOf } from '#shared/http/params';
import { BASE_PATH } from '#shared/http/paths';
import { RATE_LIMIT_POLICY_HEADER, RATE_LIMIT_POLICY_PATTERN } from '#shared/http/rate-limit-policy';
import { API_GATEWAY_ID_HEADER, REQUEST_ID_HEADER } from '#shared/http/request-id';
import { RETRY_AFTER_SECONDS, retryHeaders } from '#shared/http/retry';
import { bodyMediaTypesOf, type HttpMethod, type Operation } from '#shared/operations/operation';
import { allowedMethodsIn, scopeOf } from '#shared/operations/routes';
import { openApiMetadataOf } from '#shared/schema/describe';
import {
  EXAMPLE_REQUEST_ID,
  errorExample,
  gatewayExample,
  refusalOf,
  WHEN,
} from '#tools/openapi/error-codes';
import { documentPattern, SchemaConverter } from '#tools/openapi/json-schema';

/** The interface version; the major version is the `/v1` base path. */
export const API_VERSION = '1.1.0';
export const TAG = 'animals';
export const SECURITY_SCHEME = 'bearerAuth';
const JSON_TYPE = 'application/json';

type Reference = ReturnType<typeof ref>;
type Headers = Readonly<Record<string, ReturnType<typeof header> | Reference>>;

interface ResponseObject {
  readonly description: string;
  readonly headers?: Headers;
  readonly content?: Readonly<Record<string, { readonly schema: JsonSchema; readonly examples: unknown }>>;
}

type Responses = Readonly<Record<string, ResponseObject | Reference>>;

export type OpenApiDocument = ReturnType<typeof buildDocument>;

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

const headerRefs = (names: readonly string[]): Headers =>
  Object.fromEntries(names.map((name) => [name, ref('headers', name)]));

const header = (
  description: string,
  schema: JsonSchema,
  { example, required = true }: { readonly example?: unknown; readonly required?: boolean } = {},
) => ({
  description,
  required,
  schema,
  ...(example === undefined ? {} : { example }),
});

interface ErrorExample {
  /** Name of the example; the code when omitted. */
  readonly name?: string;
  readonly summary: string;
  readonly value: ErrorBody;
}

const gateway = (summary: string, type: GatewayResponseType): ErrorExample => ({
  summary,
  value: gatewayExample(type),
});

/** The Error object narrowed to the examples' codes and status; `allOf`: Prism drops keywords by `$ref`. */
const errorResponse = (
  schemas: SchemaConverter,
  examples: readonly ErrorExample[],
  options: { readonly lead?: string; readonly headers?: Headers } = {},
): ResponseObject => {
  const codes = [...new Set(examples.map(({ value }) => value.code))];
  const statuses = new Set(codes.map((code) => ERROR_STATUS[code]));
  if (statuses.size !== 1) throw new Error(`One response cannot carry ${codes.join(', ')}`);
  return {
    description: [options.lead, ...codes.map((code) => `\`${code}\`: ${WHEN[code]}.`)]
      .filter(Boolean)
      .join('\n\n'),
    ...(options.headers ? { headers: options.headers } : {}),
    content: {
      [JSON_TYPE]: {
        schema: schemas.convert(
          v.intersect([
            ErrorBody,
            v.looseObject({ code: v.picklist(codes), status: v.literal([...statuses][0] ?? 0) }),
          ]),
          'output',
        ),
        examples: Object.fromEntries(
          examples.map(({ name, summary, value }) => [name ?? value.code, { summary, value }]),
        ),
      },
    },
  };
};

/** API Gateway's own gateway responses carry the request id in `x-amz-apigw-id` only (docs/aws-ledger.md). */
const GATEWAY_ID_HEADERS = headerRefs([API_GATEWAY_ID_HEADER]);

/** An answer after the key was accepted also names the caller's plan. */
const CALLER_HEADERS = headerRefs([REQUEST_ID_HEADER, RATE_LIMIT_POLICY_HEADER]);

const ID_SCHEMA = { type: 'string', minLength: 1, maxLength: 128 } as const;
const RATE_LIMIT_POLICY_SCHEMA = {
  type: 'string',
  pattern: documentPattern(RATE_LIMIT_POLICY_PATTERN),
} as const;

/** An answer a function or API Gateway itself may give: `Request-Id` and the plan only from a function. */
const CALLER_HEADERS_IF_ACCEPTED = {
  [REQUEST_ID_HEADER]: header(
    "The request's id, when a function answers; API Gateway's own answer names it in `x-amz-apigw-id`.",
    ID_SCHEMA,
    { required: false },
  ),
  [RATE_LIMIT_POLICY_HEADER]: header(
    "The caller's plan, on a function's answer to an accepted key; absent on API Gateway's own.",
    RATE_LIMIT_POLICY_SCHEMA,
    { required: false },
  ),
};

const sharedResponses = (schemas: SchemaConverter) => ({
  Unauthorized: errorResponse(
    schemas,
    [gateway('No key, or a key the service does not accept', 'UNAUTHORIZED')],
    { headers: GATEWAY_ID_HEADERS },
  ),
  Forbidden: errorResponse(
    schemas,
    [
      { ...gateway("A key without the operation's scope", 'ACCESS_DENIED'), name: 'FORBIDDEN_scope' },
      { ...gateway('Blocked by the firewall', 'WAF_FILTERED'), name: 'FORBIDDEN_firewall' },
    ],
    {
      lead: 'Answered by API Gateway before any function runs: to a valid key that does not hold the scope the operation needs (its `security` names it), or, before the key is checked, by the firewall (AWS WAF) in front of the stage (docs/interface.md, "Firewall").',
      headers: GATEWAY_ID_HEADERS,
    },
  ),
  NotFound: errorResponse(
    schemas,
    [gateway('A path the API does not have', 'MISSING_AUTHENTICATION_TOKEN')],
    {
      lead: 'Answered by API Gateway, before the key is checked, for any path under `/v1` that the API does not have.',
      headers: GATEWAY_ID_HEADERS,
    },
  ),
  TooManyRequests: errorResponse(
    schemas,
    [
      gateway("Faster than the key's plan allows", 'THROTTLED'),
      gateway("The key's plan quota is used up", 'QUOTA_EXCEEDED'),
    ],
    {
      lead: 'Two codes say which limit was reached: `TOO_MANY_REQUESTS` a rate (retry after `Retry-After` seconds), `QUOTA_EXCEEDED` a quota (until the next calendar day or month, UTC).',
      headers: headerRefs(['Retry-After', API_GATEWAY_ID_HEADER]),
    },
  ),
  InternalError: errorResponse(
    schemas,
    [{ summary: 'An unexpected failure', value: errorExample(new Error('an unexpected failure')) }],
    { headers: CALLER_HEADERS_IF_ACCEPTED },
  ),
  ServiceUnavailable: errorResponse(
    schemas,
    [
      { summary: 'The database is unavailable', value: errorExample(new StoreUnavailableError('throttled')) },
      {
        ...gateway('The authorizer is unavailable', 'AUTHORIZER_FAILURE'),
        name: 'SERVICE_UNAVAILABLE_authorizer',
      },
    ],
    { headers: { ...headerRefs(['Retry-After']), ...CALLER_HEADERS_IF_ACCEPTED } },
  ),
});

const SHARED_BY_STATUS: Readonly<Record<number, keyof ReturnType<typeof sharedResponses>>> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

const HEADER_DESCRIPTIONS: Readonly<Record<keyof ReturnType<typeof deprecationHeaders>, string>> = {
  Deprecation: 'When the operation was deprecated (RFC 9745): `@` and the epoch seconds.',
  Sunset: 'When the operation will be removed (RFC 8594), as an HTTP date.',
  Link: 'The replacement (`rel="successor-version"`).',
};

/** `components.headers`, which answers refer to, after the deprecation ones. */
const COMPONENT_HEADERS = {
  [REQUEST_ID_HEADER]: header(
    "The request's id, which API Gateway generated, on every answer of a function or of API Gateway's 405 and preflights: the same value as the Error object's `requestId` and as `x-amz-apigw-id`. Quote it when you ask for help.",
    ID_SCHEMA,
    { example: EXAMPLE_REQUEST_ID },
  ),
  [API_GATEWAY_ID_HEADER]: header(
    "API Gateway's header for the same request id, on every answer it sends: the only place the id is on API Gateway's own errors (401, 403, 404 of a path, 413, 415, 429, its 5xx) besides the Error object's `requestId`.",
    ID_SCHEMA,
    { example: EXAMPLE_REQUEST_ID },
  ),
  [RATE_LIMIT_POLICY_HEADER]: header(
    "The caller's plan (IETF draft-ietf-httpapi-ratelimit-headers): two quota policies, the plan's quota (named as the plan; `q` requests per `w` seconds, a calendar day 86400 or month 2592000, reset at 00:00 UTC) and its rate (named `<plan>-rate`; `q` requests at once, and no more than `q` per `w` seconds on average). On every answer to a request whose key was accepted. What remains of them is not sent.",
    RATE_LIMIT_POLICY_SCHEMA,
    { example: '"standard";q=10000;w=86400, "standard-rate";q=20;w=2' },
  ),
  'Retry-After': header(
    'Seconds to wait before retrying. Every 429 and 503 carries it, whether the function or API Gateway answers, and so does a 409 for an Idempotency-Key still in use: 1, but 3600 for `QUOTA_EXCEEDED` (the quota resets at the start of the next calendar day or month, UTC).',
    { type: 'integer', minimum: 0 },
    { example: RETRY_AFTER_SECONDS },
  ),
};

/** The refusal of a body of `bytes` sent as `contentType`, as the body check gives it. */
const bodyRefusal = (bytes: number, contentType = JSON_TYPE, mediaTypes?: readonly string[]) =>
  errorExample(refusalOf(() => checkBody({ bytes, contentType }, MAX_BODY_BYTES, mediaTypes)));

const validationExample = (operation: Operation): ErrorExample => {
  const { summary, ...example } = operation.examples.invalid;
  // Every part the operation reads is in its event, empty when the example says nothing of it.
  const empty = Object.fromEntries(
    (['query', 'path', 'headers'] as const)
      .filter((part) => operation.request[part])
      .map((part) => [part, {}]),
  );
  const raw = { ...empty, ...example };
  return {
    summary,
    value: errorExample(refusalOf(() => parseRequest(requestSchema(operation.request), raw))),
  };
};

const isOptional = (schema: v.GenericSchema): boolean =>
  schema.type === 'optional' || schema.type === 'exact_optional' || schema.type === 'nullish';

/** A parameter is documented by the value the function works with (`limit`: an integer), not its text. */
const parameterSchema = (schemas: SchemaConverter, entry: v.GenericSchema): JsonSchema => {
  // An integer parameter is `describe(optional(integerParam(…), default))` or `describe(integerParam(…))`.
  const value = openApiMetadataOf(entry)?.schema ?? entry;
  const param = isOptional(value) ? (value as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : value;
  if (!decodedIntegerOf(param)) return schemas.convert(entry, 'input');
  // As output, the pipe converts from its last schema, the integer; its default is the text, decoded here.
  const { default: fallback, description, ...integer } = schemas.convert(entry, 'output');
  return {
    ...(fallback === undefined ? {} : { default: v.parse(param, fallback) as JsonSchema['default'] }),
    ...integer,
    ...(description === undefined ? {} : { description }),
  };
};

const parametersOf = (
  schemas: SchemaConverter,
  where: 'query' | 'path' | 'header',
  part: v.GenericSchema | undefined,
) => {
  const entries: Readonly<Record<string, v.GenericSchema>> =
    (part as { entries?: v.ObjectEntries })?.entries ?? {};
  return Object.entries(entries).map(([name, entry]) => {
    const schema = parameterSchema(schemas, entry);
    return {
      in: where,
      name,
      schema,
      ...(where === 'path' || !isOptional(entry) ? { required: true as const } : {}),
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    };
  });
};

const requestOf = (schemas: SchemaConverter, operation: Operation) => {
  const { query, path, headers, body } = operation.request;
  const parameters = [
    ...parametersOf(schemas, 'query', query),
    ...parametersOf(schemas, 'path', path),
    ...parametersOf(schemas, 'header', headers),
  ];
  return {
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              bodyMediaTypesOf(operation).map((type) => [
                type,
                { schema: schemas.convert(body, 'input'), examples: operation.examples.requests ?? {} },
              ]),
            ),
          },
        }
      : {}),
  };
};

const responsesOf = (
  schemas: SchemaConverter,
  operation: Operation,
  operations: readonly Operation[],
): Responses => {
  // Headers on every answer of the operation's function: its own plus the deprecation ones.
  const deprecation = headerRefs(
    Object.keys(operation.deprecation ? deprecationHeaders(operation.deprecation) : {}),
  );
  const fromFunction = (own: Headers = {}) => ({ headers: { ...own, ...deprecation, ...CALLER_HEADERS } });

  // Integer keys: the statuses come out in ascending order.
  const responses: Record<string, ResponseObject | Reference> = {};
  for (const [status, { description, headers = {}, body, example }] of Object.entries(operation.responses)) {
    const own = Object.entries(headers).map(([name, { description, schema, example, required }]) => [
      name,
      header(description, schemas.convert(schema, 'output'), { example, required }),
    ]);
    responses[status] = {
      description,
      ...fromFunction(Object.fromEntries(own)),
      ...(body
        ? {
            content: {
              [JSON_TYPE]: {
                schema: schemas.convert(body, 'output'),
                examples: { example: { value: example } },
              },
            },
          }
        : {}),
    };
  }

  const badRequest: ErrorExample[] = [validationExample(operation)];
  if (operation.request.body) {
    badRequest.push(
      { summary: 'Malformed JSON', value: errorExample(invalidJson()) },
      { name: 'INVALID_JSON_no_body', summary: 'No body', value: bodyRefusal(0) },
    );
    // The function's, or API Gateway's own past its 10 MB (before the key is checked).
    const ifAccepted = { headers: CALLER_HEADERS_IF_ACCEPTED };
    const tooLarge = {
      summary: `A body over ${MAX_BODY_BYTES / 1024} KiB`,
      value: bodyRefusal(MAX_BODY_BYTES + 1),
    };
    responses[ERROR_STATUS.PAYLOAD_TOO_LARGE] = errorResponse(schemas, [tooLarge], ifAccepted);
    const textPlain = {
      summary: 'A body sent as text/plain',
      value: bodyRefusal(8, 'text/plain', bodyMediaTypesOf(operation)),
    };
    responses[ERROR_STATUS.UNSUPPORTED_MEDIA_TYPE] = errorResponse(schemas, [textPlain], ifAccepted);
  }
  responses[ERROR_STATUS.VALIDATION_FAILED] = errorResponse(schemas, badRequest, fromFunction());
  for (const { summary, example } of operation.errors ?? []) {
    const value = errorExample(example());
    responses[value.status] = errorResponse(schemas, [{ summary, value }], {
      lead: `${summary}.`,
      ...fromFunction(headerRefs(Object.keys(retryHeaders(value.code)))),
    });
  }
  const allowed = allowedMethodsIn(operations, operation.path);
  const allow = allowed.join(', ');
  const { message, code } = methodNotAllowed(allowed).error;
  const notAllowed = {
    summary: `A method other than ${allow}`,
    value: errorBody(code, message, { requestId: EXAMPLE_REQUEST_ID }),
  };
  responses[ERROR_STATUS.METHOD_NOT_ALLOWED] = errorResponse(schemas, [notAllowed], {
    // The 405 mock is behind the authorizer: its answers follow an accepted key.
    headers: {
      Allow: header('The methods this path accepts.', { type: 'string', const: allow }),
      ...CALLER_HEADERS,
    },
  });
  for (const [status, name] of Object.entries(SHARED_BY_STATUS)) responses[status] = ref('responses', name);
  return responses;
};

/** The deprecated operations: their headers are components with constant values, so all must send the same. */
const deprecatedOperations = (operations: readonly Operation[]) => {
  const deprecated = operations.flatMap((operation) =>
    operation.deprecation ? [{ operation, deprecation: operation.deprecation }] : [],
  );
  const variants = deprecated.map(({ deprecation }) => JSON.stringify(deprecationHeaders(deprecation)));
  if (new Set(variants).size > 1) {
    throw new Error(
      `${deprecated.map(({ operation }) => operation.operationId).join(', ')} send different deprecation headers; the document's header components hold one set`,
    );
  }
  return deprecated;
};

/** Each scope, what it allows and the operations that need it. */
const scopesOf = (operations: readonly Operation[]): string =>
  [
    '| scope | lets a key | operations |',
    '|---|---|---|',
    ...ALL_SCOPES.map((scope) => {
      const needing = operations.filter((operation) => scopeOf(operation) === scope);
      return `| \`${scope}\` | ${SCOPES[scope]} | ${needing.map((operation) => `\`${operation.operationId}\``).join(', ')} |`;
    }),
  ].join('\n');

const introduction = (operations: readonly Operation[]): string => {
  const prose = readFileSync(new URL('./introduction.md', import.meta.url), 'utf8')
    .trim()
    .replace('<!-- scopes -->', scopesOf(operations));
  const codes = Object.entries(ERROR_STATUS).map(([code, status]) => `| \`${code}\` | ${status} |`);
  const deprecated = deprecatedOperations(operations).map(
    ({ operation, deprecation }) =>
      `\`${operation.method} ${operation.path}\` is deprecated and will be removed on ${deprecation.sunsetAt.toISOString().slice(0, 10)}; use \`GET ${deprecation.successor}?status=\` instead.`,
  );
  return [
    prose,
    ['| code | status |', '|---|---|', ...codes].join('\n'),
    "API Gateway answers some requests itself, with the same Error object: an unknown path under `/v1`\n(`404`, before the key is checked), a method outside the key's scopes (`403`, after the key is\nchecked), another method on a known path (`405` with `Allow`, after the key is checked), a plan's\nrate or quota reached (`429`), and failures of its own (`500`, `503`); the firewall in front of\nproduction answers `403` to what it blocks.",
    `## Versioning\nThe major version is the \`${BASE_PATH}\` base path. ${deprecated.join(' ')}`,
  ].join('\n\n');
};

/** What the operations do, by the first word of each summary: `list, add, get, change and remove`. */
const whatTheyDo = (operations: readonly Operation[]): string =>
  new Intl.ListFormat('en-GB').format(
    new Set(operations.map((operation) => operation.summary.split(' ')[0]?.toLowerCase() ?? '')),
  );

const operationObject = (
  schemas: SchemaConverter,
  operation: Operation,
  operations: readonly Operation[],
) => ({
  operationId: operation.operationId,
  tags: [TAG],
  summary: operation.summary,
  description: operation.description,
  ...(operation.deprecation ? { deprecated: true } : {}),
  // OpenAPI 3.1 lets a security requirement of any scheme list role names: the scope a key needs.
  security: [{ [SECURITY_SCHEME]: [scopeOf(operation)] }],
  ...requestOf(schemas, operation),
  responses: responsesOf(schemas, operation, operations),
});

/** The OpenAPI 3.1 document of the operations; `npm run openapi` writes it to docs/openapi.yaml. */
export const buildDocument = (operations: readonly Operation[] = CONTRACTS) => {
  const schemas = new SchemaConverter();
  const described = operations.map((operation) => operationObject(schemas, operation, operations));
  const responses = sharedResponses(schemas);
  const paths: Record<string, Partial<Record<Lowercase<HttpMethod>, (typeof described)[number]>>> = {};
  for (const [index, { path, method }] of operations.entries()) {
    paths[path] = { ...paths[path], [method.toLowerCase()]: described[index] };
  }
  const [deprecated] = deprecatedOperations(operations);
  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'Pet Store API',
      version: API_VERSION,
      summary: `Animals of the pet store: ${whatTheyDo(operations)} them.`,
      description: introduction(operations),
    },
    servers: (['production', 'staging'] as const).map((stage) => ({
      url: `https://{apiId}.execute-api.{region}.amazonaws.com${BASE_PATH}`,
      description: `${stage[0]?.toUpperCase()}${stage.slice(1)}: the real URL is the \`${OUTPUT.apiUrl}\` output of the stack \`${stackName(stage)}\`, which cdk deploy prints.`,
      variables: {
        apiId: { default: `${stage}-api-id`, description: `Id of the ${stage} REST API.` },
        region: { default: 'eu-west-1', description: 'AWS region of the stack.' },
      },
    })),
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: [{ name: TAG, description: 'The animals of the catalogue.' }],
    paths,
    components: {
      // In the order a reader meets them: requests, shared responses, each operation's responses.
      schemas: schemas.componentsIn([
        described.map(({ parameters, requestBody }) => ({ parameters, requestBody })),
        responses,
        described.map(({ responses }) => responses),
      ]),
      headers: {
        ...Object.fromEntries(
          Object.entries(deprecated ? deprecationHeaders(deprecated.deprecation) : {}).map(
            ([name, value]) => [
              name,
              header(HEADER_DESCRIPTIONS[name as keyof typeof HEADER_DESCRIPTIONS], {
                type: 'string',
                const: value,
              }),
            ],
          ),
        ),
        ...COMPONENT_HEADERS,
      },
      responses,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key',
          description: `An API key of the stage, issued by the operators: \`Authorization: Bearer <key>\`. A key holds scopes (${ALL_SCOPES.map((scope) => `\`${scope}\`: ${SCOPES[scope]}`).join('; ')}); each operation lists the one it needs under \`security\`, and a key without it gets 403.`,
        },
      },
    },
  };
};
