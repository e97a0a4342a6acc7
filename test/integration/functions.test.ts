import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorizerFunction } from '#functions/authorizer';
import { createPetFunction } from '#functions/create-pet';
import { getPetFunction } from '#functions/get-pet';
import { listPetsFunction } from '#functions/list-pets';
import { SCOPE_RESOURCES } from '#functions/operations';
import { updatePetFunction } from '#functions/update-pet';
import { generateApiKey } from '#shared/auth/api-key';
import type { ProxyHandler, TokenAuthorizerHandler } from '#shared/lambda';
import { lambdaContext } from '#tools/lambda/context';
import { type ProxyRequest, proxyEvent, tokenAuthorizerEvent } from '#tools/lambda/events';
import { ROOMY_POLICY } from '../support/plans';
import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';

/**
 * Each function as Lambda runs it: built by its composition root on tables of its own in
 * DynamoDB Local, called with the REST proxy event API Gateway sends. What is checked is the
 * whole answer, status, headers and body, with the documented values written out.
 */

const APP = 'http://localhost:5173';
const HOUSE_HEADERS = {
  'Content-Type': 'application/json',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  // The functions here allow an origin, so every answer depends on Origin.
  Vary: 'Origin',
};
const DEPRECATION_HEADERS = {
  Deprecation: '@1795219200',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
};
/** createPet's answers to an allowed origin: the headers they may carry are readable. */
const CORS_HEADERS = {
  Vary: 'Origin',
  'Access-Control-Allow-Origin': APP,
  'Access-Control-Expose-Headers':
    'Location, ETag, Idempotent-Replayed, Retry-After, Request-Id, RateLimit-Policy, x-amz-apigw-id',
};

let tables: TestTables;
let listPets: ProxyHandler;
let createPet: ProxyHandler;
let getPet: ProxyHandler;
let updatePet: ProxyHandler;
let authorizer: TokenAuthorizerHandler;
beforeAll(async () => {
  tables = await createTestTables('functions');
});
// Built for each test (a matter of milliseconds), as a cold start would: what building runs is
// then part of each test, for the mutation run's coverage as for a reader.
beforeEach(() => {
  const config = { ...tables.config, corsOrigins: [APP] };
  listPets = listPetsFunction.build(config);
  createPet = createPetFunction.build(config);
  getPet = getPetFunction.build(config);
  updatePet = updatePetFunction.build(config);
  authorizer = authorizerFunction.build(tables.config);
});

let requests = 0;
const call = async (
  handler: ProxyHandler,
  request: Omit<ProxyRequest, 'requestId' | 'resource'> & { resource?: string },
): Promise<APIGatewayProxyResult & { json: unknown; requestId: string }> => {
  requests += 1;
  const requestId = `request-${requests}`;
  const result = await handler(
    proxyEvent({
      resource: request.path.startsWith('/pets/') ? '/pets/{petId}' : '/pets',
      requestId,
      // What the authorizer hands on for a key on the default plan.
      authorizer: {
        principalId: 'key-functions',
        keyId: 'key-functions',
        plan: 'roomy',
        rateLimitPolicy: ROOMY_POLICY,
      },
      ...request,
    }),
    lambdaContext('function', { timeoutMs: 15_000 }),
  );
  return { ...result, json: JSON.parse(result.body), requestId };
};

/** What every answer to a request with an accepted key carries: its request's id, and the caller's plan. */
const callerHeaders = (response: { requestId: string }) => ({
  'Request-Id': response.requestId,
  'RateLimit-Policy': ROOMY_POLICY,
});
const post = (body: unknown, headers: [string, string][] = []) =>
  call(createPet, {
    method: 'POST',
    path: '/pets',
    headers: [['Content-Type', 'application/json'], ...headers],
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const list = (query: [string, string][] = [], headers: [string, string][] = []) =>
  call(listPets, { method: 'GET', path: '/pets', query, headers });

describe('createPet', () => {
  it('answers 201 with the pet, its Location, its first ETag and the house headers; status defaults to available', async () => {
    const response = await post({ name: 'Rex', categoryId: 3 });
    const { id } = response.json as { id: number };

    expect(response.statusCode).toBe(201);
    expect(response.json).toEqual({ id, name: 'Rex', categoryId: 3, status: 'available' });
    expect(response.headers).toEqual({
      ...HOUSE_HEADERS,
      ...callerHeaders(response),
      Location: `/v1/pets/${id}`,
      ETag: '"1"',
    });
  });

  it('replays the first answer to a repeated Idempotency-Key, saying so, and refuses it with another body', async () => {
    const first = await post({ name: 'Once', categoryId: 1 }, [['Idempotency-Key', 'functions-key-1']]);
    const again = await post({ categoryId: 1, name: 'Once' }, [['Idempotency-Key', 'functions-key-1']]);
    const other = await post({ name: 'Twice', categoryId: 1 }, [['Idempotency-Key', 'functions-key-1']]);

    expect(first.statusCode).toBe(201);
    expect(first.headers?.['Idempotent-Replayed']).toBeUndefined();
    expect([again.statusCode, again.body]).toEqual([201, first.body]);
    expect(again.headers?.['Idempotent-Replayed']).toBe('true');
    expect(again.headers?.Location).toBe(first.headers?.Location);
    expect(other.statusCode).toBe(422);
    expect(other.json).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
  });

  it("sends its request's Request-Id (the Error body's requestId) and the caller's RateLimit-Policy with every answer, replays included", async () => {
    const created = await post({ name: 'Paced', categoryId: 1 }, [['Idempotency-Key', 'functions-paced']]);
    const replayed = await post({ name: 'Paced', categoryId: 1 }, [['Idempotency-Key', 'functions-paced']]);
    const refused = await post({ name: '' });

    for (const response of [created, replayed, refused]) {
      expect(response.headers).toMatchObject(callerHeaders(response));
    }
    expect(replayed.headers?.['Request-Id']).not.toBe(created.headers?.['Request-Id']);
    expect(refused.json).toMatchObject({ requestId: refused.requestId });
  });

  it('adds CORS headers for an allowed origin to its answers, errors included', async () => {
    const created = await post({ name: 'Cors', categoryId: 1 }, [['Origin', APP]]);
    const refused = await post('{', [['Origin', APP]]);

    expect(created.headers).toMatchObject(CORS_HEADERS);
    expect(refused.headers).toMatchObject(CORS_HEADERS);
    expect(refused.json).toEqual({
      code: 'INVALID_JSON',
      message: 'Request body is not valid JSON',
      status: 400,
      requestId: `request-${requests}`,
    });
  });

  it('gives another origin, or two Origin headers, only Vary', async () => {
    const other = await post({ name: 'Other', categoryId: 1 }, [['Origin', 'https://evil.example']]);
    const twice = await post({ name: 'Twice', categoryId: 1 }, [
      ['Origin', APP],
      ['origin', APP],
    ]);

    for (const response of [other, twice]) {
      expect(response.statusCode).toBe(201);
      expect(response.headers?.Vary).toBe('Origin');
      expect(response.headers?.['Access-Control-Allow-Origin']).toBeUndefined();
    }
  });

  it('refuses two Authorization headers with 401, whatever their case', async () => {
    const response = await post({ name: 'Rex', categoryId: 3 }, [
      ['Authorization', 'Bearer a'],
      ['authorization', 'Bearer a'],
    ]);

    expect(response.statusCode).toBe(401);
    expect(response.json).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Send the API key in one Authorization header',
    });
  });

  it('refuses a repeated Content-Type or Idempotency-Key with 400 naming each', async () => {
    const response = await post({ name: 'Rex', categoryId: 3 }, [
      ['content-type', 'application/json'],
      ['Idempotency-Key', 'a'],
      ['IDEMPOTENCY-KEY', 'b'],
    ]);

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({
      code: 'VALIDATION_FAILED',
      message:
        'Invalid request: headers.content-type must be given once; headers.idempotency-key must be given once',
      details: [
        { field: 'headers.content-type', message: 'must be given once' },
        { field: 'headers.idempotency-key', message: 'must be given once' },
      ],
    });
  });

  it('accepts a body of exactly 16,384 bytes and refuses 16,385, counting bytes, not characters', async () => {
    // A name of 200 'é' (2 bytes each, so fewer characters than bytes), then spaces up to the limit.
    const json = JSON.stringify({ name: 'é'.repeat(200), categoryId: 1 });
    const atLimit = `${json}${' '.repeat(16_384 - Buffer.byteLength(json))}`;
    const overLimit = `${atLimit} `;

    const accepted = await post(atLimit);
    const refused = await post(overLimit);

    expect(Buffer.byteLength(atLimit)).toBe(16_384);
    expect(atLimit.length).toBeLessThan(16_384);
    expect(accepted.statusCode).toBe(201);
    expect(refused.statusCode).toBe(413);
    expect(refused.json).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Request body is 16385 bytes; at most 16384 are accepted',
    });
  });

  it('counts the decoded bytes of a base64-encoded body', async () => {
    const body = Buffer.from(`{"name":"Rex","categoryId":3}${' '.repeat(16_384)}`).toString('base64');

    const encoded = await createPet(
      {
        ...proxyEvent({
          method: 'POST',
          path: '/pets',
          resource: '/pets',
          requestId: 'b64',
          headers: [['Content-Type', 'application/json']],
          body,
        }),
        isBase64Encoded: true,
      },
      lambdaContext('createPet'),
    );

    // 16,413 bytes once decoded; its base64 text is 21,884 characters.
    expect(JSON.parse(encoded.body)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Request body is 16413 bytes; at most 16384 are accepted',
    });
  });

  it('refuses query parameters, which it does not read, rather than create a pet they do not describe', async () => {
    const response = await call(createPet, {
      method: 'POST',
      path: '/pets',
      headers: [['Content-Type', 'application/json']],
      query: [
        ['status', 'sold'],
        ['foo', 'bar'],
      ],
      body: '{"name":"Rex","categoryId":3}',
    });

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        { field: 'query.status', message: 'is not a known query parameter' },
        { field: 'query.foo', message: 'is not a known query parameter' },
      ],
    });
  });

  it.each([
    ['gzip', 'gzip'],
    ['upper case', 'GZIP'],
    ['listed after identity', 'identity, br'],
    ['repeated headers', ['identity', 'deflate']],
  ])(
    'refuses a body with a content coding (%s) with 415 and Accept-Encoding: identity',
    async (_, coding) => {
      const codings = [coding].flat().map((value): [string, string] => ['Content-Encoding', value]);

      const response = await post({ name: 'Rex', categoryId: 3 }, codings);

      expect(response.statusCode).toBe(415);
      expect(response.headers).toMatchObject({ 'Accept-Encoding': 'identity' });
      expect(response.json).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
    },
  );

  it('accepts Content-Encoding: identity, which is no coding', async () => {
    const response = await post({ name: 'Rex', categoryId: 3 }, [['Content-Encoding', 'identity']]);

    expect(response.statusCode).toBe(201);
  });

  it.each([
    ['bytes FF FE C3', [0xff, 0xfe, 0xc3]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['a surrogate encoded as CESU-8', [0xed, 0xa0, 0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
  ])(
    'refuses a body that is not UTF-8 (%s) with 400 INVALID_JSON, base64-encoded or decoded as API Gateway decodes text',
    async (_, bytes) => {
      const raw = Buffer.concat([
        Buffer.from('{"name":"'),
        Buffer.from(bytes),
        Buffer.from('","categoryId":3}'),
      ]);
      const event = (body: string, isBase64Encoded: boolean) => ({
        ...proxyEvent({
          method: 'POST',
          path: '/pets',
          resource: '/pets',
          requestId: 'utf8',
          headers: [['Content-Type', 'application/json']],
          body,
        }),
        isBase64Encoded,
      });

      // API Gateway hands a text body on as a string: what is not UTF-8 in it becomes U+FFFD.
      const asText = await createPet(event(raw.toString('utf8'), false), lambdaContext('createPet'));
      const asBase64 = await createPet(event(raw.toString('base64'), true), lambdaContext('createPet'));

      for (const answer of [asText, asBase64]) {
        expect(answer.statusCode).toBe(400);
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'INVALID_JSON', status: 400 });
      }
    },
  );

  it('accepts UTF-8 beyond ASCII, base64-encoded or not, and U+FFFD sent as a JSON escape', async () => {
    const name = 'Zoë 🐶';
    const base64 = await createPet(
      {
        ...proxyEvent({
          method: 'POST',
          path: '/pets',
          resource: '/pets',
          requestId: 'utf8-ok',
          headers: [['Content-Type', 'application/json']],
          body: Buffer.from(JSON.stringify({ name, categoryId: 3 })).toString('base64'),
        }),
        isBase64Encoded: true,
      },
      lambdaContext('createPet'),
    );
    const text = await post({ name, categoryId: 3 });
    const escaped = await post('{"name":"Rex \\ufffd","categoryId":3}');

    expect([base64.statusCode, JSON.parse(base64.body).name]).toEqual([201, name]);
    expect([text.statusCode, (text.json as { name: string }).name]).toEqual([201, name]);
    expect([escaped.statusCode, (escaped.json as { name: string }).name]).toEqual([201, 'Rex \uFFFD']);
  });

  it('refuses a missing body with 400, and any media type but JSON in UTF-8 with 415', async () => {
    const empty = await call(createPet, {
      method: 'POST',
      path: '/pets',
      headers: [['Content-Type', 'application/json']],
    });
    const noType = await call(createPet, {
      method: 'POST',
      path: '/pets',
      body: '{"name":"Rex","categoryId":3}',
    });
    const text = await post('{"name":"Rex","categoryId":3}', []).then(() =>
      call(createPet, {
        method: 'POST',
        path: '/pets',
        headers: [['Content-Type', 'text/plain']],
        body: '{"name":"Rex","categoryId":3}',
      }),
    );
    const upperCase = await call(createPet, {
      method: 'POST',
      path: '/pets',
      headers: [['Content-Type', 'Application/JSON ; charset="UTF-8"']],
      body: '{"name":"Rex","categoryId":3}',
    });

    expect(empty.json).toMatchObject({
      code: 'INVALID_JSON',
      message: 'Request body is required: a JSON object',
    });
    expect([noType.statusCode, text.statusCode]).toEqual([415, 415]);
    expect(text.json).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Content-Type must be application/json',
    });
    expect(upperCase.statusCode).toBe(201);
  });

  it('answers 415, not 500, to an event with a body and no header map at all, as a console test sends', async () => {
    const bare = {
      ...proxyEvent({
        method: 'POST',
        path: '/pets',
        resource: '/pets',
        requestId: 'request-bare',
        authorizer: { principalId: 'key-functions' },
        body: '{"name":"Rex","categoryId":3}',
      }),
      headers: null,
      multiValueHeaders: null,
    } as unknown as APIGatewayProxyEvent;

    const response = await createPet(bare, lambdaContext('function', { timeoutMs: 15_000 }));

    expect(response.statusCode).toBe(415);
    expect(JSON.parse(response.body)).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Content-Type must be application/json',
    });
  });

  it('names each field at fault: missing, unknown, of the wrong type', async () => {
    const response = await post({ categoryId: 'three', colour: 'red', size: 2 });

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({
      code: 'VALIDATION_FAILED',
      message:
        'Invalid request: body.name is required; body.categoryId must be an integer; body.colour is not a known field; body.size is not a known field',
      details: [
        { field: 'body.name', message: 'is required' },
        { field: 'body.categoryId', message: 'must be an integer' },
        { field: 'body.colour', message: 'is not a known field' },
        { field: 'body.size', message: 'is not a known field' },
      ],
    });
  });

  it('says a body that is not an object must be a JSON object, and a null name must be a string', async () => {
    const array = await post([]);
    const nullName = await post({ name: null, categoryId: 1 });

    expect(array.json).toMatchObject({ message: 'Invalid request: body must be a JSON object' });
    expect(nullName.json).toMatchObject({ message: 'Invalid request: body.name must be a string' });
  });
});

describe('a body nested deeper than the service reads', () => {
  // About 2,000 levels once overflowed the stack of the exact-number check: a 500 on POST and PATCH.
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it('is refused by create and change alike with 400 VALIDATION_FAILED naming the body, not a 500', async () => {
    const created = await post(nested(2_000));
    const changed = await call(updatePet, {
      method: 'PATCH',
      path: '/pets/1',
      headers: [
        ['Content-Type', 'application/merge-patch+json'],
        ['If-Match', '"1"'],
      ],
      body: nested(2_000),
    });

    for (const response of [created, changed]) {
      expect(response.statusCode).toBe(400);
      expect(response.json).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'body', message: expect.stringContaining('nested') }],
      });
    }
  });
});

describe('listPets', () => {
  it('pages through a status with a Link to the next page, the last page without one', async () => {
    const ids: number[] = [];
    for (const name of ['Page1', 'Page2', 'Page3']) {
      const created = await post({ name, categoryId: 9, status: 'sold' });
      ids.push((created.json as { id: number }).id);
    }

    const first = await list([
      ['status', 'sold'],
      ['limit', '2'],
    ]);
    const link = String(first.headers?.Link ?? '');
    const cursor = /[?&]cursor=([^&>]+)/.exec(link)?.[1] ?? '';
    const second = await list([
      ['status', 'sold'],
      ['limit', '2'],
      ['cursor', cursor],
    ]);

    expect(first.statusCode).toBe(200);
    expect((first.json as { id: number }[]).map((pet) => pet.id)).toEqual(ids.slice(0, 2));
    expect(link).toMatch(/^<\/v1\/pets\?status=sold&limit=2&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
    expect(second.json).toEqual([{ id: ids[2], name: 'Page3', categoryId: 9, status: 'sold' }]);
    expect(second.headers).toEqual({ ...HOUSE_HEADERS, ...callerHeaders(second) });
  });

  it('refuses a cursor of another status, a repeated parameter, an unknown one and a limit out of range', async () => {
    const first = await list([
      ['status', 'sold'],
      ['limit', '1'],
    ]);
    const cursor = /cursor=([^&>]+)/.exec(String(first.headers?.Link ?? ''))?.[1] ?? '';

    const otherStatus = await list([['cursor', cursor]]);
    const repeated = await list([
      ['limit', '1'],
      ['limit', '2'],
    ]);
    const unknown = await list([['colour', 'red']]);
    const zero = await list([['limit', '0']]);

    expect(otherStatus.json).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        {
          field: 'query.cursor',
          message: 'belongs to a listing with another status; a cursor keeps the status of the first page',
        },
      ],
    });
    expect(repeated.json).toMatchObject({
      message: 'Invalid request: query.limit must be given once',
      details: [{ field: 'query.limit', message: 'must be given once' }],
    });
    expect(unknown.json).toMatchObject({
      message: 'Invalid request: query.colour is not a known query parameter',
    });
    expect(zero.json).toMatchObject({ message: 'Invalid request: query.limit must be at least 1' });
  });
});

describe('getPet', () => {
  it('answers 200 with the pet, its ETag and the deprecation headers', async () => {
    const created = await post({ name: 'Deprecated', categoryId: 4, status: 'pending' });
    const { id } = created.json as { id: number };

    const response = await call(getPet, {
      method: 'GET',
      path: `/pets/${id}`,
      pathParameters: { petId: String(id) },
    });

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ id, name: 'Deprecated', categoryId: 4, status: 'pending' });
    expect(response.headers).toEqual({
      ...HOUSE_HEADERS,
      ...DEPRECATION_HEADERS,
      ...callerHeaders(response),
      ETag: '"1"',
    });
  });

  it('reads no query string, so refuses any query parameter with 400 naming it, repeated or not', async () => {
    const response = await call(getPet, {
      method: 'GET',
      path: '/pets/987654320',
      pathParameters: { petId: '987654320' },
      query: [
        ['x', '1'],
        ['x', '2'],
        ['foo', ''],
      ],
    });

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        { field: 'query.x', message: 'is not a known query parameter' },
        { field: 'query.foo', message: 'is not a known query parameter' },
      ],
    });
  });

  it('answers 404 for a pet that does not exist, and 400 for an id that is not one, both deprecated', async () => {
    const missing = await call(getPet, {
      method: 'GET',
      path: '/pets/987654321',
      pathParameters: { petId: '987654321' },
    });
    const invalid = await call(getPet, {
      method: 'GET',
      path: '/pets/abc',
      pathParameters: { petId: 'abc' },
    });

    expect(missing.statusCode).toBe(404);
    expect(missing.json).toEqual({
      code: 'NOT_FOUND',
      message: 'Pet 987654321 does not exist',
      status: 404,
      requestId: `request-${requests - 1}`,
    });
    expect(missing.headers).toEqual({ ...HOUSE_HEADERS, ...DEPRECATION_HEADERS, ...callerHeaders(missing) });
    expect(invalid.json).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'path.petId', message: 'must be an integer' }],
    });
    expect(invalid.headers).toMatchObject(DEPRECATION_HEADERS);
  });
});

describe('the authorizer', () => {
  it('allows every method of every scope for a stored key made before scopes, and names it and its scopes in the context', async () => {
    const { key, record } = generateApiKey('functions tests');
    await apiKeysOf(tables).put(record);

    const result = await authorizer(
      tokenAuthorizerEvent(`Bearer ${key}`, 'arn:aws:execute-api:eu-west-1:123456789012:abc/v1/GET/pets'),
      lambdaContext('authorizer'),
    );

    expect(result).toEqual({
      principalId: record.keyId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: [...SCOPE_RESOURCES['read:pets'], ...SCOPE_RESOURCES['write:pets']].map(
              (resource) => `arn:aws:execute-api:eu-west-1:123456789012:abc/v1/${resource}`,
            ),
          },
        ],
      },
      context: {
        keyId: record.keyId,
        keyName: 'functions tests',
        plan: 'roomy',
        rateLimitPolicy: ROOMY_POLICY,
        scopes: 'read:pets write:pets',
      },
    });
  });

  it('hands API Gateway the usage identifier of a key on a plan, so its usage plan meters it', async () => {
    const { key, record } = generateApiKey('metered');
    await apiKeysOf(tables).put({
      ...record,
      plan: 'tight',
      usage: { id: 'apikey1', value: 'usage0123456789abcdefghij' },
    });

    const result = await authorizer(
      tokenAuthorizerEvent(`Bearer ${key}`, 'arn:aws:execute-api:eu-west-1:123456789012:abc/v1/GET/pets'),
      lambdaContext('authorizer'),
    );

    expect(result).toMatchObject({
      usageIdentifierKey: 'usage0123456789abcdefghij',
      context: { plan: 'tight', rateLimitPolicy: '"tight";q=5;w=86400, "tight-rate";q=2;w=2' },
    });
  });

  it('throws Unauthorized, the message API Gateway answers 401 to, for a key it does not hold', async () => {
    await expect(
      authorizer(
        tokenAuthorizerEvent('Bearer psk_unknown', 'arn:aws:execute-api:x:1:a/v1/GET/pets'),
        lambdaContext('authorizer'),
      ),
    ).rejects.toThrow(/^Unauthorized$/);
  });
});
