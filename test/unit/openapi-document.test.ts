import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { allowedMethods, CONTRACTS } from '#functions/operations';
import { NewPet, PET_STATUSES } from '#shared/domain/pet';
import { GATEWAY_RESPONSES } from '#shared/http/gateway-behaviour';
import { scopeOf } from '#shared/operations/routes';
import { Contract } from '#tools/contract/conformance';
import { buildDocument } from '#tools/openapi/build-document';
import { readCommittedYaml, toYaml } from '#tools/openapi/document-file';
import { DOCUMENTED_ERROR_STATUS } from '../support/documented-errors';

/**
 * The generated document against what docs/api.md promises. Expected fragments are written out
 * here, not recomputed with the generator's own calls, so a change to the schemas or the
 * generator shows up as a diff a reviewer reads.
 */

type Json = Record<string, unknown>;
interface Document extends Json {
  paths: Record<string, Record<string, Json>>;
  components: Record<'schemas' | 'responses' | 'headers' | 'securitySchemes', Record<string, Json>>;
}

const document = buildDocument() as unknown as Document;
const contract = new Contract(document, 'the generated document');

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const operations = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation: operation as Json })),
  );

const operation = (operationId: string) => {
  const found = operations().find(({ operation }) => operation.operationId === operationId);
  if (!found) throw new Error(`No operation ${operationId}`);
  return found.operation as Json & { responses: Record<string, Json>; parameters?: Json[] };
};

const ID = {
  type: 'integer',
  minimum: 1,
  maximum: 9007199254740991,
  format: 'int64',
};
const NAME = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  allOf: [
    { pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$(?!\\n)' },
    { pattern: '^([^\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$(?!\\n)' },
  ],
  description:
    "The animal's name: 1 to 200 characters (Unicode code points, well-formed: no lone surrogate), at least one of them visible (not white space, a control, format or default-ignorable character such as U+200B or U+3164), and no control character (U+0000..U+001F, U+007F..U+009F) anywhere.",
  example: 'Rex',
};
const CATEGORY_ID = { ...ID, description: 'Identifier of the category the animal belongs to.' };
const STATUS_REF = { $ref: '#/components/schemas/PetStatus' };

const CURSOR_DESCRIPTION =
  'Where the page starts: copied unchanged from the `Link` header of the previous page, never built by hand. Good only with the `status` of the page it came from (`limit` may change). At most 128 characters.';

const ERROR_CODE_STATUS = DOCUMENTED_ERROR_STATUS;

describe('docs/openapi.yaml', () => {
  it('is exactly what the code generates (run `npm run openapi` and commit it when this fails)', () => {
    expect(readCommittedYaml()).toBe(toYaml(buildDocument()));
  });
});

describe('the schemas', () => {
  it('are exactly Pet, Pets, NewPet, PetPatch, PetStatus, Error and ErrorDetail', () => {
    expect(Object.keys(document.components.schemas).sort()).toEqual(
      ['Error', 'ErrorDetail', 'NewPet', 'Pet', 'PetPatch', 'PetStatus', 'Pets'].sort(),
    );
  });

  it('describe a new pet as the request body the service accepts: no id, no unknown field', () => {
    expect(document.components.schemas.NewPet).toEqual({
      type: 'object',
      properties: {
        name: NAME,
        categoryId: CATEGORY_ID,
        status: { description: 'Availability; `available` when omitted.', ...STATUS_REF },
      },
      required: ['name', 'categoryId'],
      additionalProperties: false,
      description: 'An animal to add; the service assigns its id.',
    });
  });

  it('describe a pet as the service returns it: every field present, nothing more', () => {
    expect(document.components.schemas.Pet).toEqual({
      type: 'object',
      properties: {
        id: { ...ID, description: 'Unique identifier assigned by the service on creation.' },
        name: NAME,
        categoryId: CATEGORY_ID,
        status: STATUS_REF,
      },
      required: ['id', 'name', 'categoryId', 'status'],
      additionalProperties: false,
      description: 'An animal of the catalogue.',
    });
    expect(document.components.schemas.Pets).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Pet' },
      description: 'One page of animals.',
    });
    expect(document.components.schemas.PetStatus).toEqual({
      type: 'string',
      enum: ['available', 'pending', 'sold'],
      description: 'Availability of the animal.',
    });
  });

  it('describe the Error object with every code, its status, and optional details and requestId', () => {
    expect(document.components.schemas.Error).toEqual({
      type: 'object',
      properties: {
        code: {
          type: 'string',
          enum: Object.keys(ERROR_CODE_STATUS),
          description: 'Machine-readable error code.',
        },
        message: { type: 'string', description: 'Human-readable description.' },
        status: {
          type: 'integer',
          minimum: 400,
          maximum: 599,
          description: 'The HTTP status code of the response.',
        },
        details: {
          description: 'Per-field problems of a 400: the first 10; the message says how many more there are.',
          maxItems: 10,
          type: 'array',
          items: { $ref: '#/components/schemas/ErrorDetail' },
        },
        requestId: { description: 'Identifier of the request, for support.', type: 'string' },
      },
      required: ['code', 'message', 'status'],
      additionalProperties: false,
      description: 'Returned with every failure, as `application/json`.',
    });
    expect(document.components.schemas.ErrorDetail).toEqual({
      type: 'object',
      properties: {
        field: {
          type: 'string',
          maxLength: 64,
          description:
            'Where the problem is, e.g. `body.name` or `query.limit`; a name longer than 64 characters is cut, ending in `…`.',
        },
        message: { type: 'string' },
      },
      required: ['field', 'message'],
      additionalProperties: false,
    });
  });

  it("accepts and refuses the same NewPet bodies as the service, but for the name's visible character (its description's)", () => {
    const value = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 220 }),
      fc.constantFrom('', ' ', '\t\n', 'Rex', 'x'.repeat(200), 'x'.repeat(201), ...PET_STATUSES, 'AVAILABLE'),
      // Lengths in code points, and text that is not well-formed (lone surrogates).
      fc.constantFrom('🐕'.repeat(150), '🐕'.repeat(200), '🐕'.repeat(201), 'a\ud800', '\udc00b'),
      // Halves of surrogate pairs, alone or meeting as a pair.
      fc.string({ unit: fc.constantFrom('a', ' ', '\ud83d', '\udc15', '🐕'), maxLength: 12 }),
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(1.5, 2 ** 53 - 1, 2 ** 53, -1e308, 0),
      fc.boolean(),
      fc.constant(null),
    );
    const body = fc.oneof(
      fc.dictionary(fc.constantFrom('name', 'categoryId', 'status', 'staus', 'id'), value),
      fc.record({ name: value, categoryId: value }),
      fc.record({ name: fc.string({ minLength: 1 }), categoryId: fc.integer({ min: 1 }), status: value }),
    );
    // Every rule but the name's visible character, which Unicode's tables decide and the description
    // states: no pattern in the subset every validator reads can (test/unit/openapi-patterns.test.ts).
    const BLANK = 'must not be blank';
    fc.assert(
      fc.property(body, (candidate) => {
        const documented = contract.validate('#/components/schemas/NewPet', candidate).length === 0;
        const issues = v.safeParse(NewPet, candidate).issues ?? [];
        expect(documented).toBe(issues.every((issue) => issue.message.startsWith(BLANK)));
      }),
      { numRuns: 1_000 },
    );
    expect(v.safeParse(NewPet, { name: '\u200b', categoryId: 1 }).issues?.[0]?.message).toMatch(BLANK);
    expect(contract.validate('#/components/schemas/NewPet', { name: '\u200b', categoryId: 1 })).toEqual([]);
  });
});

describe('the parameters', () => {
  it('document limit as an optional integer 1..100 defaulting to 20, status as a PetStatus, and cursor as an opaque string', () => {
    expect(operation('listPets').parameters).toEqual([
      {
        in: 'query',
        name: 'limit',
        description: 'Maximum number of animals returned.',
        schema: {
          type: 'integer',
          minimum: 1,
          maximum: 100,
          default: 20,
          description: 'Maximum number of animals returned.',
        },
      },
      {
        in: 'query',
        name: 'status',
        description: 'Only animals with this availability.',
        schema: { description: 'Only animals with this availability.', ...STATUS_REF },
      },
      {
        in: 'query',
        name: 'cursor',
        description: CURSOR_DESCRIPTION,
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          pattern: '^[A-Za-z0-9_-]+$(?!\\n)',
          description: CURSOR_DESCRIPTION,
          example: 'Afzl4d6NqI_eeyJwIjpbMjBdfQ',
        },
      },
    ]);
  });

  it('document petId as a required positive int64', () => {
    expect(operation('getPet').parameters?.[0]).toEqual({
      in: 'path',
      name: 'petId',
      required: true,
      description: 'Identifier of the animal.',
      schema: { ...ID, description: 'Identifier of the animal.' },
    });
  });

  it.each(['getPet', 'updatePet', 'deletePet'])(
    'document the optional If-Match and If-None-Match of %s, saying how each compares tags',
    (operationId) => {
      const headers = (operation(operationId).parameters ?? []).filter(
        (parameter) => parameter.in === 'header',
      );

      expect(headers.map(({ name, required }) => [name, required])).toEqual([
        ['if-match', undefined],
        ['if-none-match', undefined],
      ]);
      expect(headers[0]?.description).toContain('compared strongly');
      expect(headers[1]?.description).toContain('compared weakly');
    },
  );
});

describe('the operations', () => {
  it('are the operations of the list, in its order, the deprecated ones marked so, and no other', () => {
    const documented = operations().map(({ path, method, operation }) => ({
      operationId: operation.operationId,
      method,
      path,
      deprecated: operation.deprecated === true,
    }));

    expect(documented).toEqual(
      CONTRACTS.map((contract) => ({
        operationId: contract.operationId,
        method: contract.method.toLowerCase(),
        path: contract.path,
        deprecated: contract.deprecation !== undefined,
      })),
    );
    expect(documented.find(({ operationId }) => operationId === 'getPet')?.deprecated).toBe(true);
  });

  it('are tagged `animals` and secured by the bearer scheme, each naming the scope a key needs for it', () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(
      operations().map(({ operation }) => [operation.operationId, operation.tags, operation.security]),
    ).toEqual(
      CONTRACTS.map((contract) => [contract.operationId, ['animals'], [{ bearerAuth: [scopeOf(contract)] }]]),
    );
  });

  it('are served under servers that end in the /v1 base path', () => {
    const servers = document.servers as { url: string }[];
    expect(servers.map((server) => server.url)).toEqual([
      'https://{apiId}.execute-api.{region}.amazonaws.com/v1',
      'https://{apiId}.execute-api.{region}.amazonaws.com/v1',
    ]);
  });
});

describe('errors', () => {
  /** Every response carrying the Error object, with the codes and status it is narrowed to. */
  const errorResponses = () => {
    const all = [
      ...operations().flatMap(({ operation }) => Object.entries(operation.responses as Record<string, Json>)),
      ...Object.entries(document.components.responses),
    ];
    return all.flatMap(([name, response]) => {
      const schema = (response.content as Record<string, { schema: Json }> | undefined)?.['application/json']
        ?.schema;
      const narrowing = (schema?.allOf as Json[] | undefined)?.[1] as
        | { properties: { code: { enum: (keyof typeof ERROR_CODE_STATUS)[] }; status: { const: number } } }
        | undefined;
      return narrowing
        ? [{ name, codes: narrowing.properties.code.enum, status: narrowing.properties.status.const }]
        : [];
    });
  };

  it('narrows every error response to codes whose status is the response status', () => {
    const responses = errorResponses();
    expect(responses.length).toBeGreaterThan(10);
    for (const { name, codes, status } of responses) {
      for (const code of codes) expect({ code, status: ERROR_CODE_STATUS[code] }).toEqual({ code, status });
      if (/^\d+$/.test(name)) expect(status).toBe(Number(name));
    }
  });

  it.each([
    ['listPets', [200, 400, 401, 403, 405, 429, 500, 503]],
    ['createPet', [201, 400, 401, 403, 405, 409, 413, 415, 422, 429, 500, 503]],
    ['getPet', [200, 304, 400, 401, 403, 404, 405, 412, 429, 500, 503]],
  ])('declares every status %s answers with', (operationId, statuses) => {
    expect(Object.keys(operation(operationId).responses).map(Number)).toEqual(statuses);
  });

  it('declares both 400 codes of createPet', () => {
    const badRequest = operation('createPet').responses['400'] as { content: Json };
    expect(JSON.stringify(badRequest.content)).toContain('"enum":["VALIDATION_FAILED","INVALID_JSON"]');
  });

  it('declares 405 with the Allow value of each path', () => {
    const allow = (operationId: string) =>
      (operation(operationId).responses['405'] as { headers: { Allow: { schema: Json } } }).headers.Allow
        .schema.const as string;
    for (const contract of CONTRACTS) {
      expect(allow(contract.operationId)).toBe(allowedMethods(contract.path).join(', '));
    }
    expect(allow('getPet')).toMatch(/^GET, .*PATCH, .*DELETE/);
  });
});

describe('the summary and introduction', () => {
  it('sum up what every operation does, by the first word of its summary', () => {
    const info = document.info as { summary: string };
    for (const { operation: declared } of operations()) {
      const verb = String(declared.summary).split(' ')[0]?.toLowerCase() ?? '';
      expect({ verb, named: info.summary.toLowerCase().includes(verb) }).toEqual({ verb, named: true });
    }
  });

  it("do not say every answer carries Request-Id, since API Gateway's own errors declare none", () => {
    const gatewayOnly = document.components.responses.NotFound as { headers?: Record<string, Json> };
    expect(gatewayOnly.headers?.['Request-Id']).toBeUndefined();
    const description = String((document.info as { description: string }).description).replace(/\s+/g, ' ');
    expect(description).not.toContain('Every answer carries `Request-Id`');
    expect(description).toContain('Every answer carries its request id in `x-amz-apigw-id`');
  });
});

describe('fair use and request ids', () => {
  const REQUEST_ID_REF = { $ref: '#/components/headers/Request-Id' };
  const POLICY_REF = { $ref: '#/components/headers/RateLimit-Policy' };

  it('declares the request id on every response: Request-Id where a function or a mock may answer, x-amz-apigw-id on API Gateway’s own', () => {
    const GATEWAY_ID_REF = { $ref: '#/components/headers/x-amz-apigw-id' };
    for (const { operation: declared } of operations()) {
      for (const [status, response] of Object.entries(declared.responses as Record<string, Json>)) {
        const resolved = (
          response.$ref
            ? document.components.responses[String(response.$ref).split('/').pop() ?? '']
            : response
        ) as { headers?: Record<string, Json> };
        const gatewayOnly = ['401', '403', '429'].includes(status);
        const header = gatewayOnly ? resolved.headers?.['x-amz-apigw-id'] : resolved.headers?.['Request-Id'];
        expect({ status, declared: header !== undefined }).toEqual({ status, declared: true });
        if (gatewayOnly) expect(header).toEqual(GATEWAY_ID_REF);
        // Only a function answers these (a 413, 415 or 5xx may be API Gateway's: optional there).
        else if (!['413', '415', '500', '503'].includes(status)) expect(header).toEqual(REQUEST_ID_REF);
      }
    }
    expect(document.components.responses.NotFound?.headers).toEqual({ 'x-amz-apigw-id': GATEWAY_ID_REF });
    expect(document.components.headers['Request-Id']).toMatchObject({
      required: true,
      schema: { type: 'string', minLength: 1, maxLength: 128 },
    });
  });

  it("requires the caller's RateLimit-Policy on what a function or the 405 answers, in the draft's form", () => {
    for (const [operationId, statuses] of [
      ['listPets', ['200', '400', '405']],
      ['createPet', ['201', '400', '405', '409', '422']],
      ['getPet', ['200', '304', '400', '404', '405', '412']],
    ] as const) {
      for (const status of statuses) {
        const { headers } = operation(operationId).responses[status] as { headers: Record<string, Json> };
        expect({ operationId, status, policy: headers['RateLimit-Policy'] }).toEqual({
          operationId,
          status,
          policy: POLICY_REF,
        });
      }
    }
    const policy = document.components.headers['RateLimit-Policy'] as {
      required: boolean;
      schema: { pattern: string };
      example: string;
    };
    expect(policy.required).toBe(true);
    expect(policy.example).toMatch(new RegExp(policy.schema.pattern));
    expect('"standard";q=10000;w=86400').not.toMatch(new RegExp(policy.schema.pattern));
  });

  it('declares both 429 codes, rate and quota, with Retry-After, and no plan: a gateway response cannot name it', () => {
    const tooMany = document.components.responses.TooManyRequests as {
      headers: Record<string, Json>;
      content: Json;
    };

    expect(JSON.stringify(tooMany.content)).toContain('"enum":["TOO_MANY_REQUESTS","QUOTA_EXCEEDED"]');
    expect(tooMany.headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(tooMany.headers['RateLimit-Policy']).toBeUndefined();
  });

  it('declares 403 FORBIDDEN on every operation: a key without its scope, or the firewall', () => {
    for (const { operation: declared } of operations()) {
      expect((declared.responses as Record<string, Json>)['403']).toEqual({
        $ref: '#/components/responses/Forbidden',
      });
    }
    const forbidden = document.components.responses.Forbidden as {
      content: { 'application/json': { examples: Record<string, { value: unknown }> } };
    };
    expect(JSON.stringify(forbidden)).toContain('"enum":["FORBIDDEN"]');
    expect(Object.values(forbidden.content['application/json'].examples).map(({ value }) => value)).toEqual([
      expect.objectContaining(GATEWAY_RESPONSES.ACCESS_DENIED),
      expect.objectContaining(GATEWAY_RESPONSES.WAF_FILTERED),
    ]);
  });
});

describe('the idempotent createPet', () => {
  it('documents Idempotency-Key as an optional header of 1 to 255 printable ASCII characters', () => {
    const [parameter] = operation('createPet').parameters ?? [];

    expect(parameter).toMatchObject({
      in: 'header',
      name: 'idempotency-key',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]*$(?!\\n)' },
    });
    expect(parameter).not.toHaveProperty('required');
    expect(parameter?.description).toContain('24 hours');
  });

  it('declares Idempotent-Replayed on 201, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After, and 422 IDEMPOTENCY_KEY_REUSED', () => {
    const { responses } = operation('createPet');
    const headers = (status: string) => (responses[status] as { headers?: Record<string, Json> }).headers;

    expect(headers('201')?.['Idempotent-Replayed']).toMatchObject({
      required: false,
      schema: { type: 'string', const: 'true' },
    });
    expect(headers('409')).toEqual({
      'Retry-After': { $ref: '#/components/headers/Retry-After' },
      'Request-Id': { $ref: '#/components/headers/Request-Id' },
      'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
    });
    expect(JSON.stringify(responses['409'])).toContain('"enum":["IDEMPOTENCY_KEY_IN_USE"]');
    expect(JSON.stringify(responses['422'])).toContain('"enum":["IDEMPOTENCY_KEY_REUSED"]');
  });

  it('declares the Link header of listPets as optional, relative to the host and rel="next"', () => {
    const { headers } = operation('listPets').responses['200'] as {
      headers: { Link: { required: boolean; schema: { type: string; pattern: string } } };
    };

    expect(headers.Link).toMatchObject({ required: false, schema: { type: 'string' } });
    const pattern = new RegExp(headers.Link.schema.pattern);
    expect(pattern.test('</v1/pets?limit=20&cursor=AbC-_9>; rel="next"')).toBe(true);
    expect(pattern.test('</v1/pets>; rel="successor-version"')).toBe(false);
  });
});

describe('the deprecated getPet', () => {
  it('is deprecated, with its removal date and replacement in the description', () => {
    const getPet = operation('getPet');
    expect(getPet.deprecated).toBe(true);
    expect(getPet.description).toContain('2030-12-05');
    expect(getPet.description).toContain('GET /pets?status=');
  });

  it('declares the Deprecation, Sunset and Link headers on every answer of its function, with their values', () => {
    for (const status of ['200', '400', '404']) {
      const { headers } = operation('getPet').responses[status] as { headers: Record<string, Json> };
      expect(Object.keys(headers).sort()).toEqual([
        'Deprecation',
        ...(status === '200' ? ['ETag'] : []),
        'Link',
        'RateLimit-Policy',
        'Request-Id',
        'Sunset',
      ]);
    }
    expect(document.components.headers.Deprecation).toMatchObject({
      required: true,
      schema: { const: '@1795219200' },
    });
    expect(document.components.headers.Sunset).toMatchObject({
      required: true,
      schema: { const: 'Thu, 05 Dec 2030 00:00:00 GMT' },
    });
    expect(document.components.headers.Link).toMatchObject({
      required: true,
      schema: { const: '</v1/pets>; rel="successor-version"' },
    });
  });
});

describe('examples', () => {
  const examplesIn = (
    node: unknown,
    pointer: string,
  ): { pointer: string; schema: string; value: unknown }[] => {
    if (node === null || typeof node !== 'object') return [];
    const here = node as Json;
    const found: { pointer: string; schema: string; value: unknown }[] = [];
    if (here.schema && here.examples && typeof here.examples === 'object') {
      for (const [name, example] of Object.entries(here.examples as Record<string, { value: unknown }>)) {
        found.push({
          pointer: `${pointer}/examples/${name}`,
          schema: `${pointer}/schema`,
          value: example.value,
        });
      }
    }
    for (const [key, child] of Object.entries(here)) {
      found.push(...examplesIn(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`));
    }
    return found;
  };

  it('are each valid against the schema beside them', () => {
    const examples = examplesIn(document, '#');
    expect(examples.length).toBeGreaterThan(15);
    for (const { pointer, schema, value } of examples) {
      expect({ pointer, problems: contract.validate(schema, value) }).toEqual({ pointer, problems: [] });
    }
  });

  it('show the messages the service sends, e.g. for limit above 100', () => {
    const badRequest = operation('listPets').responses['400'] as {
      content: { 'application/json': { examples: Record<string, { value: Json }> } };
    };
    expect(badRequest.content['application/json'].examples.VALIDATION_FAILED?.value).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: query.limit must be at most 100',
      status: 400,
      details: [{ field: 'query.limit', message: 'must be at most 100' }],
    });
  });
});
