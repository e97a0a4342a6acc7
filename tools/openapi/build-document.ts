import type * as z from 'zod/mini';
import {
  bodyFailures,
  errorExample,
  gatewayErrorExample,
  internalError,
  methodNotAllowedExample,
  newPetExamples,
  notFound,
  petExample,
  petsExample,
  storeUnavailable,
  validationFailure,
} from '#infra/openapi/examples';
import { type JsonSchema, SchemaComponents } from '#infra/openapi/json-schema';
import { OUTPUT } from '#infra/outputs';
import { BASE_PATH, ROUTES, type Route } from '#infra/routes';
import { stackName } from '#infra/stage-names';
import { LIST_LIMIT_MAX, NewPet, Pet, Pets } from '#shared/domain/pet';
import {
  GET_PET_DEPRECATED_AT,
  GET_PET_DEPRECATION_HEADERS,
  GET_PET_SUNSET_AT,
} from '#shared/http/deprecation';
import { ERROR_STATUS, ErrorBody, type ErrorCode } from '#shared/http/error-body';
import { RETRY_AFTER_SECONDS } from '#shared/http/error-mapper';
import type { HttpError } from '#shared/http/http-error';
import { MAX_BODY_BYTES } from '#shared/http/middleware/json-body';
import { petLocation } from '#shared/http/paths';
import {
  createPetRequest,
  getPetRequest,
  listPetsRequest,
  type RequestSchema,
} from '#shared/http/request-schemas';

/**
 * The OpenAPI 3.1 document of the API, built from what the service runs: the zod schemas the
 * middleware validates with, the route table the stack and the local server share, the error code
 * table, the deprecation headers and the gateway's own responses. `npm run openapi` writes it to
 * docs/openapi.yaml; a unit test fails when that file and this function disagree.
 */

/** The interface version (spec section 9); the major version is the `/v1` base path. */
export const API_VERSION = '1.0.0';

export const TAG = 'animals';
export const SECURITY_SCHEME = 'bearerAuth';

export type OpenApiDocument = JsonSchema & {
  paths: Record<string, Record<string, JsonSchema>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, JsonSchema>;
    headers: Record<string, JsonSchema>;
    securitySchemes: Record<string, JsonSchema>;
  };
};

type OperationId = Route['operationId'];

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });
const ERROR_SCHEMA = ref('schemas', 'Error');
const JSON_MEDIA_TYPE = 'application/json';
const SUNSET_DATE = GET_PET_SUNSET_AT.toISOString().slice(0, 10);
const KIB = MAX_BODY_BYTES / 1024;

/** When each error code is sent; the status always comes from ERROR_STATUS. */
const WHEN: Record<ErrorCode, string> = {
  VALIDATION_FAILED:
    'a parameter or field is missing, of the wrong type, out of range, repeated or unknown; `details` names each field at fault (`query.limit`, `path.petId`, `body.name`, …)',
  INVALID_JSON: 'the body is missing or is not valid JSON',
  UNAUTHORIZED: 'the API key is missing, unknown or revoked, or not sent as `Authorization: Bearer <key>`',
  NOT_FOUND: 'the requested resource does not exist',
  METHOD_NOT_ALLOWED:
    'the path exists but does not accept this method; `Allow` lists those it does. OpenAPI cannot list the methods a path lacks, so this answer is declared on every operation of the path',
  PAYLOAD_TOO_LARGE: `the body is larger than ${KIB} KiB`,
  UNSUPPORTED_MEDIA_TYPE: 'the body is not sent as `application/json`',
  TOO_MANY_REQUESTS: "the stage's rate limit is exceeded; retry later, with backoff",
  INTERNAL_ERROR: 'an unexpected failure; the body never carries internal details',
  SERVICE_UNAVAILABLE:
    'the database or the authorizer is temporarily unavailable, or the request ran out of time; retry shortly',
};

const errorDescription = (codes: readonly ErrorCode[], lead?: string) =>
  [lead, ...codes.map((code) => `\`${code}\`: ${WHEN[code]}.`)].filter(Boolean).join('\n\n');

/**
 * The Error object narrowed to the codes a response can carry and to its status, so a validator
 * (the conformance check, Prism) also checks that a 404 says `NOT_FOUND` with `status: 404`.
 * `allOf` rather than keywords beside `$ref`: OpenAPI 3.1 allows both, but tools such as Prism
 * replace the referenced `properties` with the sibling ones.
 */
const errorSchema = (codes: readonly ErrorCode[]): JsonSchema => {
  const statuses = [...new Set(codes.map((code) => ERROR_STATUS[code]))];
  if (statuses.length !== 1) throw new Error(`One response cannot carry ${codes.join(', ')}`);
  return {
    allOf: [
      ERROR_SCHEMA,
      { type: 'object', properties: { code: { enum: [...codes] }, status: { const: statuses[0] } } },
    ],
  };
};

interface ErrorExample {
  /** Name of the example in the document; the code when omitted. */
  readonly name?: string;
  readonly summary: string;
  readonly value: ErrorBody;
}

const errorResponse = (
  examples: readonly ErrorExample[],
  options: { lead?: string; headers?: Record<string, unknown> } = {},
): JsonSchema => {
  const codes = [...new Set(examples.map(({ value }) => value.code))];
  return {
    description: errorDescription(codes, options.lead),
    ...(options.headers ? { headers: options.headers } : {}),
    content: {
      [JSON_MEDIA_TYPE]: {
        schema: errorSchema(codes),
        examples: Object.fromEntries(
          examples.map(({ name, summary, value }) => [name ?? value.code, { summary, value }]),
        ),
      },
    },
  };
};

/** API Gateway's own answers that every operation can get, as shared responses. */
const gatewayResponses = (): Record<string, JsonSchema> => ({
  Unauthorized: errorResponse([
    { summary: 'No key, or a key the service does not accept', value: gatewayErrorExample('UNAUTHORIZED') },
  ]),
  NotFound: errorResponse(
    [{ summary: 'A path the API does not have', value: gatewayErrorExample('MISSING_AUTHENTICATION_TOKEN') }],
    {
      lead: 'Answered by API Gateway, before the key is checked, for any path under `/v1` that the API does not have.',
    },
  ),
  TooManyRequests: errorResponse([{ summary: 'Throttled', value: gatewayErrorExample('THROTTLED') }]),
  InternalError: errorResponse([{ summary: 'An unexpected failure', value: errorExample(internalError()) }]),
  ServiceUnavailable: errorResponse(
    [
      { summary: 'The database is unavailable', value: errorExample(storeUnavailable()) },
      {
        name: 'SERVICE_UNAVAILABLE_authorizer',
        summary: 'The authorizer is unavailable',
        value: gatewayErrorExample('AUTHORIZER_FAILURE'),
      },
    ],
    { headers: { 'Retry-After': ref('headers', 'Retry-After') } },
  ),
});

const GATEWAY_RESPONSE_BY_STATUS = {
  401: 'Unauthorized',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
} as const;

interface OperationContract {
  readonly summary: string;
  readonly description: string;
  /** What the validation middleware parses the request with (the function uses the same). */
  readonly request: RequestSchema;
  readonly requestExamples?: Record<string, { summary: string; value: unknown }>;
  readonly success: {
    readonly status: 200 | 201;
    readonly description: string;
    readonly schema: z.ZodMiniType;
    readonly example: unknown;
    readonly headers?: Record<string, unknown>;
  };
  /** The 400 example: the operation's own validation, run on a bad request. */
  readonly invalidRequest: () => Promise<{ summary: string; error: HttpError }>;
  /** Errors of the operation's own logic, beyond validation and the gateway's. */
  readonly domainErrors?: readonly { summary: string; error: HttpError }[];
  /** Headers of a deprecated operation, on every answer of its function. */
  readonly deprecationHeaders?: Readonly<Record<string, string>>;
}

const OPERATIONS: Record<OperationId, OperationContract> = {
  listPets: {
    summary: 'List animals',
    description: [
      'One page of animals: at most `limit` of them. With `status`, only the animals of that availability, oldest (lowest id) first; without it, in no particular order.',
      'There is no cursor: the page is the first `limit` animals.',
      'Unknown, repeated or out-of-range query parameters are refused with 400, never ignored or clamped.',
    ].join('\n\n'),
    request: listPetsRequest,
    success: {
      status: 200,
      description: 'One page of animals (possibly empty).',
      schema: Pets,
      example: petsExample,
    },
    invalidRequest: async () => ({
      summary: `\`limit\` above ${LIST_LIMIT_MAX}`,
      error: await validationFailure(listPetsRequest, {
        queryStringParameters: { limit: '500' },
        multiValueQueryStringParameters: { limit: ['500'] },
      }),
    }),
  },
  createPet: {
    summary: 'Add an animal',
    description: [
      'Adds an animal. The service assigns its `id`; `status` is `available` when omitted.',
      `The body must be a JSON object of at most ${KIB} KiB, sent as \`application/json\`. Unknown fields (including \`id\`) are refused, so a misspelt field never silently creates an animal.`,
    ].join('\n\n'),
    request: createPetRequest,
    requestExamples: {
      minimal: { summary: 'Name and category only', value: newPetExamples.minimal },
      withStatus: { summary: 'With a status', value: newPetExamples.withStatus },
    },
    success: {
      status: 201,
      description: 'The animal was added; the body is the animal with its `id`.',
      schema: Pet,
      example: petExample,
      headers: {
        Location: {
          description: 'Where the new animal can be read.',
          required: true,
          schema: { type: 'string', format: 'uri-reference' },
          example: petLocation(petExample.id),
        },
      },
    },
    invalidRequest: async () => ({
      summary: 'An empty name, categoryId 0 and a misspelt field',
      error: await validationFailure(createPetRequest, {
        body: { name: '', categoryId: 0, staus: 'sold' } as never,
      }),
    }),
  },
  getPet: {
    summary: 'Get an animal (deprecated)',
    description: [
      `**Deprecated** since ${GET_PET_DEPRECATED_AT.toISOString().slice(0, 10)}; removed on ${SUNSET_DATE}. Use \`GET /pets?status=\` (\`listPets\`) instead.`,
      'Still served until then. Every answer of the function itself (success, 400, 404) carries `Deprecation`, `Sunset` and `Link` headers.',
    ].join('\n\n'),
    request: getPetRequest,
    success: { status: 200, description: 'The animal.', schema: Pet, example: petExample },
    invalidRequest: async () => ({
      summary: '`petId` is not a positive integer',
      error: await validationFailure(getPetRequest, { pathParameters: { petId: 'abc' } }),
    }),
    domainErrors: [{ summary: 'No animal has this id', error: notFound(987654321) }],
    deprecationHeaders: GET_PET_DEPRECATION_HEADERS,
  },
};

const DEPRECATION_HEADER_DESCRIPTIONS: Record<string, string> = {
  Deprecation: 'When the operation was deprecated (RFC 9745): `@` and the epoch seconds.',
  Sunset: 'When the operation will be removed (RFC 8594), as an HTTP date.',
  Link: 'The replacement (`rel="successor-version"`).',
};

/** The operation's query or path parameters: each one's schema as the function sees it (output side). */
const parametersOf = (request: RequestSchema, components: SchemaComponents): JsonSchema[] =>
  (['path', 'query'] as const).flatMap((location) => {
    const part = request.shape[location];
    if (!part) return [];
    const output = components.use(part, 'output') as { properties?: Record<string, JsonSchema> };
    // Whether a client must send it is an input question: a defaulted parameter is optional.
    const input = components.use(part, 'input') as { required?: string[] };
    return Object.entries(output.properties ?? {}).map(([name, { description, ...schema }]) => ({
      name,
      in: location,
      required: input.required?.includes(name) ?? false,
      ...(description ? { description } : {}),
      schema,
    }));
  });

const jsonContent = (schema: JsonSchema, examples: Record<string, unknown>) => ({
  [JSON_MEDIA_TYPE]: { schema, examples },
});

const buildOperation = async (
  route: Route,
  contract: OperationContract,
  components: SchemaComponents,
  methodNotAllowed: JsonSchema,
): Promise<JsonSchema> => {
  if (Boolean(route.deprecated) !== Boolean(contract.deprecationHeaders)) {
    throw new Error(`${route.operationId}: the route table and the contract disagree on deprecation`);
  }
  // Headers on the answers of the operation's function: its own plus the deprecation ones.
  const deprecation = Object.fromEntries(
    Object.keys(contract.deprecationHeaders ?? {}).map((name) => [name, ref('headers', name)]),
  );
  const fromFunction = (own: Record<string, unknown> = {}) => {
    const headers = { ...own, ...deprecation };
    return Object.keys(headers).length > 0 ? { headers } : {};
  };

  const body = contract.request.shape.body;
  const invalid = await contract.invalidRequest();
  const badRequestExamples: ErrorExample[] = [
    { summary: invalid.summary, value: errorExample(invalid.error) },
  ];
  const responses: Record<string, unknown> = {
    [contract.success.status]: {
      description: contract.success.description,
      ...fromFunction(contract.success.headers),
      content: jsonContent(components.use(contract.success.schema, 'output'), {
        example: { value: contract.success.example },
      }),
    },
  };
  if (body) {
    const failures = await bodyFailures();
    badRequestExamples.push(
      { summary: 'Malformed JSON', value: errorExample(failures.invalidJson) },
      { name: 'INVALID_JSON_no_body', summary: 'No body', value: errorExample(failures.missingBody) },
    );
    responses[ERROR_STATUS.PAYLOAD_TOO_LARGE] = errorResponse([
      { summary: `A body over ${KIB} KiB`, value: errorExample(failures.tooLarge) },
    ]);
    responses[ERROR_STATUS.UNSUPPORTED_MEDIA_TYPE] = errorResponse([
      { summary: 'A body sent as text/plain', value: errorExample(failures.unsupportedMediaType) },
    ]);
  }
  responses[ERROR_STATUS.VALIDATION_FAILED] = errorResponse(badRequestExamples, fromFunction());
  for (const { summary, error } of contract.domainErrors ?? []) {
    responses[error.status] = errorResponse([{ summary, value: errorExample(error) }], {
      lead: `${summary}.`,
      ...fromFunction(),
    });
  }
  responses[ERROR_STATUS.METHOD_NOT_ALLOWED] = methodNotAllowed;
  for (const [status, name] of Object.entries(GATEWAY_RESPONSE_BY_STATUS)) {
    responses[status] = ref('responses', name);
  }

  const parameters = parametersOf(contract.request, components);
  return {
    operationId: route.operationId,
    tags: [TAG],
    summary: contract.summary,
    description: contract.description,
    ...(route.deprecated ? { deprecated: true } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: jsonContent(components.use(body, 'input'), contract.requestExamples ?? {}),
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
};

const INFO_DESCRIPTION = `A catalogue of animals: list them, optionally by availability, add one, and read one by id.

## Authentication
Every operation needs an API key, sent as \`Authorization: Bearer <key>\` (the scheme in any case).
A missing, unknown or revoked key gets \`401\` with the Error object.

## Errors
Every response is \`application/json\`. Every failure is the \`Error\` object: a machine-readable
\`code\`, a \`message\` for people, and \`status\`, always equal to the HTTP status. Validation
failures add \`details\`, one \`{ field, message }\` per field at fault; most errors add a \`requestId\`.

| code | status |
|---|---|
${Object.entries(ERROR_STATUS)
  .map(([code, status]) => `| \`${code}\` | ${status} |`)
  .join('\n')}

API Gateway answers some requests itself, with the same Error object: an unknown path under \`/v1\`
(\`404\`, before the key is checked), another method on a known path (\`405\` with \`Allow\`, after
the key is checked), throttling (\`429\`), and failures of its own (\`500\`, \`503\`).

## Versioning
The major version is the \`/v1\` base path. \`GET /pets/{petId}\` is deprecated and will be removed
on ${SUNSET_DATE}; use \`GET /pets?status=\` instead.`;

/** The whole document, as a plain object ready to serialise. */
export const buildDocument = async (): Promise<OpenApiDocument> => {
  const components = new SchemaComponents();
  // The named schemas first, in a reading order: what is returned, what is sent, what fails.
  components.use(Pets, 'output');
  components.use(NewPet, 'input');
  components.use(ErrorBody, 'output');

  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of ROUTES) {
    const { body, allow } = methodNotAllowedExample(route.path);
    const methodNotAllowed = errorResponse([{ summary: `A method other than ${allow}`, value: body }], {
      headers: {
        Allow: {
          description: 'The methods this path accepts.',
          required: true,
          schema: { type: 'string', const: allow },
        },
      },
    });
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = await buildOperation(
      route,
      OPERATIONS[route.operationId],
      components,
      methodNotAllowed,
    );
    paths[route.path] = item;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store API',
      version: API_VERSION,
      summary: 'Animals of the pet store: list, add and read them.',
      description: INFO_DESCRIPTION,
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
      schemas: components.schemas,
      responses: gatewayResponses(),
      headers: {
        ...Object.fromEntries(
          Object.entries(GET_PET_DEPRECATION_HEADERS).map(([name, value]) => [
            name,
            {
              description: DEPRECATION_HEADER_DESCRIPTIONS[name] ?? name,
              required: true,
              schema: { type: 'string', const: value },
            },
          ]),
        ),
        'Retry-After': {
          description:
            "Seconds to wait before retrying. Sent when the function itself reports the outage; API Gateway's own 503s may lack it.",
          required: false,
          schema: { type: 'integer', minimum: 0 },
          example: RETRY_AFTER_SECONDS,
        },
      },
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key',
          description: 'An API key of the stage, issued by the operators: `Authorization: Bearer <key>`.',
        },
      },
    },
  };
};
