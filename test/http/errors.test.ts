import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#shared/auth/api-key';
import type { ApiClient, ObservedExchange } from '../support/api-client';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { responseHeaderProblems } from '../support/response-headers';
import { apiKeysOf } from '../support/tables';

let api: LocalApi;
let client: ApiClient;

beforeAll(async () => {
  api = await startLocalApi('errors');
  client = api.client;
});
afterAll(() => api.close());

/** Every failure is the Error object, as JSON, with `status` equal to the HTTP status. */
const expectError = (response: ObservedExchange, status: number, code: string) => {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.json).toMatchObject({ code, status, message: expect.any(String) });
  expect(response.text).not.toMatch(/\bat .+:\d+:\d+/); // no stack trace
};

const detailsOf = (response: ObservedExchange) =>
  (response.json as { details?: { field: string; message: string }[] }).details ?? [];

describe('authentication', () => {
  const operations = [
    ['GET', '/pets'],
    ['POST', '/pets'],
    ['GET', '/pets/1'],
  ] as const;

  it.each(operations)('%s %s answers 401 UNAUTHORIZED without a key', async (method, path) => {
    const response = await client.request(path, {
      method,
      anonymous: true,
      body: method === 'POST' ? {} : undefined,
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });

  it.each([
    ['an unknown key', 'Bearer psk_not-a-key'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['a bare key', 'psk_not-a-key'],
  ])('answers 401 UNAUTHORIZED for %s, without echoing it', async (_case, authorization) => {
    const response = await client.get('/pets', {
      anonymous: true,
      headers: { Authorization: authorization },
    });

    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.text).not.toContain('not-a-key');
  });

  it('accepts the bearer scheme in any case', async () => {
    const response = await client.get('/pets', {
      anonymous: true,
      headers: { authorization: `BEARER ${api.apiKey}` },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a key once it is revoked', async () => {
    const keys = apiKeysOf(api.tables);
    const { key, record } = generateApiKey('short-lived');
    await keys.put(record);
    const headers = { Authorization: `Bearer ${key}` };
    expect((await client.get('/pets', { anonymous: true, headers })).status).toBe(200);

    await keys.revoke(record.keyId, new Date().toISOString());

    expectError(await client.get('/pets', { anonymous: true, headers }), 401, 'UNAUTHORIZED');
  });
});

describe('GET /v1/pets with a bad query', () => {
  it.each([
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['limit=abc', 'query.limit'],
    ['limit=', 'query.limit'],
    ['limit=1.5', 'query.limit'],
    ['limit=-1', 'query.limit'],
    ['limit=1e2', 'query.limit'],
    ['status=lost', 'query.status'],
    ['status=', 'query.status'],
    ['status=AVAILABLE', 'query.status'],
    ['limit=5&limit=6', 'query.limit'],
    ['limt=5', 'query.limt'],
  ])('answers 400 VALIDATION_FAILED for ?%s, naming %s', async (query, field) => {
    const response = await client.get(`/pets?${query}`);

    expectError(response, 400, 'VALIDATION_FAILED');
    expect(detailsOf(response).map((detail) => detail.field)).toContain(field);
  });

  it('never clamps: limit=1000 is an error, not 100 pets', async () => {
    const response = await client.get('/pets?limit=1000');
    expect(response.json).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'query.limit' }] });
  });
});

describe('GET /v1/pets/{petId} with a bad id', () => {
  it.each(['abc', '0', '-1', '1.5', '9007199254740992', '99999999999999999999', '%20'])(
    'answers 400 VALIDATION_FAILED for /pets/%s',
    async (petId) => {
      const response = await client.get(`/pets/${petId}`);

      expectError(response, 400, 'VALIDATION_FAILED');
      expect(detailsOf(response).map((detail) => detail.field)).toEqual(['path.petId']);
    },
  );
});

describe('POST /v1/pets with a bad body', () => {
  it.each([
    ['no name', { categoryId: 1 }, 'body.name', 'is required'],
    ['no categoryId', { name: 'Rex' }, 'body.categoryId', 'is required'],
    ['an empty name', { name: '', categoryId: 1 }, 'body.name', 'must not be empty'],
    ['a blank name', { name: '   ', categoryId: 1 }, 'body.name', 'must not be blank'],
    [
      'a 201-character name',
      { name: 'x'.repeat(201), categoryId: 1 },
      'body.name',
      'must be at most 200 characters',
    ],
    ['a numeric name', { name: 7, categoryId: 1 }, 'body.name', 'must be a string'],
    ['categoryId 0', { name: 'Rex', categoryId: 0 }, 'body.categoryId', 'must be at least 1'],
    ['a fractional categoryId', { name: 'Rex', categoryId: 1.5 }, 'body.categoryId', 'must be an integer'],
    ['a string categoryId', { name: 'Rex', categoryId: '3' }, 'body.categoryId', 'must be an integer'],
    [
      'categoryId 2^53',
      { name: 'Rex', categoryId: 2 ** 53 },
      'body.categoryId',
      'must be at most 9007199254740991',
    ],
    ['an unknown status', { name: 'Rex', categoryId: 1, status: 'lost' }, 'body.status', 'must be one of'],
    ['a misspelt field', { name: 'Rex', categoryId: 1, staus: 'sold' }, 'body.staus', 'is not a known field'],
    ['an id', { id: 5, name: 'Rex', categoryId: 1 }, 'body.id', 'is not a known field'],
  ])('answers 400 VALIDATION_FAILED for %s', async (_case, body, field, message) => {
    const response = await client.post('/pets', body);

    expectError(response, 400, 'VALIDATION_FAILED');
    const detail = detailsOf(response).find((candidate) => candidate.field === field);
    expect(detail?.message).toContain(message);
  });

  it('accepts a 200-character name', async () => {
    expect((await client.post('/pets', { name: 'x'.repeat(200), categoryId: 1 })).status).toBe(201);
  });

  it('lists every problem of a body at once', async () => {
    const response = await client.post('/pets', { name: '', categoryId: -2, extra: true });

    expect(
      detailsOf(response)
        .map((detail) => detail.field)
        .sort(),
    ).toEqual(['body.categoryId', 'body.extra', 'body.name']);
  });

  it.each([
    ['an array', '[]'],
    ['null', 'null'],
    ['a string', '"Rex"'],
    ['a number', '42'],
  ])('answers 400 VALIDATION_FAILED for a body that is %s, not an object', async (_case, text) => {
    const response = await client.post('/pets', text, { headers: { 'Content-Type': 'application/json' } });

    expectError(response, 400, 'VALIDATION_FAILED');
    expect(detailsOf(response)).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });

  it.each([
    ['malformed JSON', '{"name": "Rex",'],
    ['a lone brace', '{'],
    ['text', 'name=Rex'],
  ])('answers 400 INVALID_JSON for %s', async (_case, text) => {
    const response = await client.post('/pets', text, { headers: { 'Content-Type': 'application/json' } });
    expectError(response, 400, 'INVALID_JSON');
  });

  it('answers 400 INVALID_JSON for an empty body', async () => {
    const response = await client.request('/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expectError(response, 400, 'INVALID_JSON');
  });

  it.each([
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['form data', { 'Content-Type': 'application/x-www-form-urlencoded' }],
    ['no content type', {}],
  ])('answers 415 UNSUPPORTED_MEDIA_TYPE for %s', async (_case, headers) => {
    const response = await client.post('/pets', '{"name":"Rex","categoryId":1}', { headers });
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 16 KiB, even valid JSON', async () => {
    const response = await client.post('/pets', { name: 'x'.repeat(17 * 1024), categoryId: 1 });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers 413 PAYLOAD_TOO_LARGE at the gateway for a body over API Gateway’s 10 MB', async () => {
    const response = await client.post('/pets', 'x'.repeat(10 * 1024 * 1024 + 1), {
      headers: { 'Content-Type': 'application/json' },
    });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('routing', () => {
  it.each(['/nope', '/pets/1/owner', '/', '/pets//1'])(
    'answers 404 NOT_FOUND for the unknown path /v1%s',
    async (path) => {
      expectError(await client.get(path), 404, 'NOT_FOUND');
    },
  );

  it('treats a trailing slash as the same resource', async () => {
    const response = await client.get('/pets/?limit=1');

    expect(response.status).toBe(200);
    expect(Array.isArray(response.json)).toBe(true);
  });

  it('answers 404 NOT_FOUND outside the /v1 base path', async () => {
    const response = await fetch(api.gateway.baseUrl.replace('/v1', '/v2/pets'));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it.each([
    ['DELETE', '/pets/1', 'GET'],
    ['PUT', '/pets/1', 'GET'],
    ['POST', '/pets/1', 'GET'],
    ['DELETE', '/pets', 'GET, POST'],
    ['PATCH', '/pets', 'GET, POST'],
  ])('answers %s %s with 405 METHOD_NOT_ALLOWED and Allow: %s', async (method, path, allow) => {
    const response = await client.request(path, { method });

    expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe(allow);
  });
});

describe('resilience', () => {
  it('answers a malformed HTTP request with a 400 Error object and keeps serving', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(api.gateway.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });

    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(raw).toContain('"code":"VALIDATION_FAILED"');
    expect(raw).toContain('X-Content-Type-Options: nosniff\r\n');
    expect(raw).toContain('Cache-Control: no-store\r\n');
    expect((await client.get('/pets?limit=1')).status).toBe(200);
  });

  it('still creates and reads pets after a barrage of bad requests', async () => {
    await Promise.all([
      client.post('/pets', '{', { headers: { 'Content-Type': 'application/json' } }),
      client.post('/pets', { name: '' }),
      client.get('/pets?limit=-5'),
      client.get('/pets/abc'),
      client.request('/pets', { method: 'DELETE' }),
      client.get('/pets', { anonymous: true }),
    ]);

    const created = await client.post('/pets', { name: 'Survivor', categoryId: 9 });
    expect(created.status).toBe(201);
    const id = (created.json as { id: number }).id;
    expect((await client.get(`/pets/${id}`)).json).toMatchObject({ name: 'Survivor' });
  });
});

/**
 * A request with header lines exactly as given (fetch would fold a repeated header into one), and
 * its answer. Not an ApiClient exchange: the contract has nothing to say about such requests.
 */
const rawRequest = (
  method: string,
  path: string,
  headers: readonly [string, string][],
  body?: string,
): Promise<{ status: number; headers: Headers; text: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(`${api.gateway.baseUrl}${path}`);
    // A header given several values is sent as that many lines.
    const byName: Record<string, string[]> = {};
    for (const [name, value] of headers) byName[name] = [...(byName[name] ?? []), value];
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers: byName,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          const received = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) received.set(name, String(value));
          }
          resolve({ status: response.statusCode ?? 0, headers: received, text });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });

const bytesOf = (response: { text: string }) => Buffer.byteLength(response.text);

describe('hostile input', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'answers ?%s=1 with 400 naming the parameter, never a 500',
    async (name) => {
      const response = await client.get(`/pets?${name}=1`);

      expectError(response, 400, 'VALIDATION_FAILED');
      expect(detailsOf(response)).toEqual([{ field: `query.${name}`, message: expect.any(String) }]);
    },
  );

  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])(
    'serves a request carrying a header named %s like any other',
    async (name) => {
      const response = await client.get('/pets?limit=1', { headers: { [name]: '1' } });

      expect(response.status).toBe(200);
    },
  );

  it.each([
    ['Application/JSON', 201],
    ['application/json ; charset=UTF-8', 201],
    ['APPLICATION/JSON;CHARSET="utf-8"', 201],
    ['application/json; charset=latin1', 415],
    ['application/jsonx', 415],
  ])('reads Content-Type %s as RFC 9110 does: %i', async (contentType, status) => {
    const response = await client.post('/pets', '{"name":"Typed","categoryId":1}', {
      headers: { 'Content-Type': contentType },
    });

    expect(response.status).toBe(status);
  });

  it('refuses two Content-Type headers with 400 rather than picking one', async () => {
    const response = await rawRequest(
      'POST',
      '/pets',
      [
        ['Authorization', `Bearer ${api.apiKey}`],
        ['Content-Type', 'text/plain'],
        ['Content-Type', 'application/json'],
      ],
      '{"name":"Twice","categoryId":1}',
    );

    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'headers.content-type', message: 'must be given once' }],
    });
    expect(responseHeaderProblems(response)).toEqual([]);
  });

  it('refuses two Idempotency-Key headers with 400 rather than picking one, and creates nothing', async () => {
    const before = ((await client.get('/pets?limit=100')).json as unknown[]).length;

    const response = await rawRequest(
      'POST',
      '/pets',
      [
        ['Authorization', `Bearer ${api.apiKey}`],
        ['Content-Type', 'application/json'],
        ['Idempotency-Key', 'first-key'],
        ['Idempotency-Key', 'second-key'],
      ],
      '{"name":"Keyed twice","categoryId":1}',
    );

    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'headers.idempotency-key', message: 'must be given once' }],
    });
    expect(((await client.get('/pets?limit=100')).json as unknown[]).length).toBe(before);
  });

  it.each([
    ['a valid key, then an invalid one', ['VALID', 'Bearer psk_not-a-key']],
    ['an invalid key, then a valid one', ['Bearer psk_not-a-key', 'VALID']],
    ['the valid key twice', ['VALID', 'VALID']],
  ])('refuses two Authorization headers (%s) with 401', async (_case, values) => {
    const authorization = values.map((value): [string, string] => [
      'Authorization',
      value === 'VALID' ? `Bearer ${api.apiKey}` : value,
    ]);

    const response = await rawRequest('GET', '/pets', authorization);

    expect(response.status).toBe(401);
    expect(JSON.parse(response.text)).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(responseHeaderProblems(response)).toEqual([]);
  });

  it.each([
    ['only U+200B', '\u200b'],
    ['U+200D U+200C', '\u200d\u200c'],
    ['U+2060 U+00A0', '\u2060\u00a0'],
    ['only U+3164', '\u3164'],
  ])('refuses a name of %s: nothing in it shows', async (_case, name) => {
    const response = await client.post('/pets', { name, categoryId: 1 });

    expectError(response, 400, 'VALIDATION_FAILED');
    expect(detailsOf(response)).toEqual([
      {
        field: 'body.name',
        message:
          'must not be blank: it needs a visible character (not a space, control, format or invisible one)',
      },
    ]);
  });

  it.each([
    ['NUL', 'Rex\u0000'],
    ['BEL', 'Re\u0007x'],
    ['a line break', 'Rex\nSmith'],
  ])('refuses a name with %s in it', async (_case, name) => {
    const response = await client.post('/pets', { name, categoryId: 1 });

    expectError(response, 400, 'VALIDATION_FAILED');
    expect(detailsOf(response)).toEqual([
      {
        field: 'body.name',
        message: 'must not contain control characters (U+0000 to U+001F, U+007F to U+009F)',
      },
    ]);
  });

  it('answers 1,500 unknown fields with a 400 of 10 details, under 4 KiB', async () => {
    const body: Record<string, unknown> = { name: 'Rex', categoryId: 1 };
    for (let index = 0; index < 1_500; index += 1) body[`f${index}`] = 0;

    const response = await client.post('/pets', body);

    expectError(response, 400, 'VALIDATION_FAILED');
    expect(detailsOf(response)).toHaveLength(10);
    expect((response.json as { message: string }).message).toMatch(/; and 1490 more problems$/);
    expect(bytesOf(response)).toBeLessThanOrEqual(4_096);
  });

  it('answers a 10 kB unknown query name with a 400 that echoes 64 characters of it', async () => {
    const name = 'q'.repeat(10_000);

    const response = await client.get(`/pets?${name}=1`);

    expectError(response, 400, 'VALIDATION_FAILED');
    expect(detailsOf(response).map((detail) => detail.field)).toEqual([`query.${'q'.repeat(57)}…`]);
    expect(bytesOf(response)).toBeLessThanOrEqual(4_096);
  });
});

describe('any request', () => {
  /** Header names fetch lets a caller set, in any case; values of printable ASCII. */
  const headerName = fc
    .stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,24}$/)
    .filter(
      (name) =>
        ![
          'host',
          'content-length',
          'connection',
          'transfer-encoding',
          'expect',
          'upgrade',
          'keep-alive',
          'te',
          'trailer',
        ].includes(name.toLowerCase()),
    );
  const headerValue = fc.string({ maxLength: 40 }).map((value) => value.trim());
  const query = fc.array(fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })), {
    maxLength: 4,
  });
  const path = fc.oneof(
    fc.constant('/pets'),
    fc.constant('/pets/1'),
    fc.string({ maxLength: 12 }).map((segment) => `/pets/${encodeURIComponent(segment)}`),
  );
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
    fc
      .record({ name: fc.string({ maxLength: 30 }), categoryId: fc.integer() }, { requiredKeys: [] })
      .map((pet) => JSON.stringify(pet)),
    fc.string({ maxLength: 60 }),
  );
  const contentType = fc.constantFrom(
    'application/json',
    'Application/JSON; charset=utf-8',
    'text/plain',
    'application/json; charset=latin1',
    undefined,
  );

  it('gets a success, or the Error object with its status (never a 500), under 4 KiB, with nosniff and no-store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'DELETE'),
        path,
        query,
        fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
        body,
        contentType,
        fc.boolean(),
        async (method, target, parameters, headers, text, type, withKey) => {
          const search = new URLSearchParams(parameters).toString();
          const response = await client.request(`${target}${search ? `?${search}` : ''}`, {
            method,
            anonymous: !withKey,
            headers: { ...headers, ...(type ? { 'Content-Type': type } : {}) },
            ...(method === 'POST' ? { body: text } : {}),
          });

          expect(response.status).not.toBe(500);
          if (response.status >= 400) {
            expect(response.json).toMatchObject({ code: expect.any(String), status: response.status });
          }
          expect(bytesOf(response)).toBeLessThanOrEqual(4_096);
          // nosniff, no-store and the contract are checked on every response by the setup file.
        },
      ),
      { numRuns: 120 },
    );
  });
});
