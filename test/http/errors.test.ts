import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#shared/auth/api-key';
import type { ApiClient } from '#tools/contract/api-client';
import { assertError, detailsOf } from '#tools/contract/assertions';
import { responseHeaderProblems } from '#tools/contract/response-headers';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { rawExchange } from '../support/network';
import { apiKeysOf } from '../support/tables';

let api: LocalApi;
let client: ApiClient;

beforeAll(async () => {
  api = await startLocalApi('errors');
  client = api.client;
});
afterAll(() => api.close());

/**
 * Errors only the local server can show: a key revoked in its table, the gateway's own limits,
 * raw HTTP (malformed framing, repeated headers fetch would fold), and random requests by the
 * hundred. Everything a client can provoke on any stage is in the contract suite
 * (tools/contract/, run by contract.test.ts).
 */
describe('authentication', () => {
  it('refuses a key once it is revoked', async () => {
    const keys = apiKeysOf(api.tables);
    const { key, record } = generateApiKey('short-lived');
    await keys.put(record);
    const headers = { Authorization: `Bearer ${key}` };
    expect((await client.get('/pets', { anonymous: true, headers })).status).toBe(200);

    await keys.revoke(record.keyId, new Date().toISOString());

    assertError(await client.get('/pets', { anonymous: true, headers }), 401, 'UNAUTHORIZED');
  });
});

describe('limits of the gateway', () => {
  it('answers 413 PAYLOAD_TOO_LARGE at the gateway for a body over API Gateway’s 10 MB', async () => {
    const response = await client.post('/pets', 'x'.repeat(10 * 1024 * 1024 + 1), {
      headers: { 'Content-Type': 'application/json' },
    });
    assertError(response, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('routing', () => {
  it('answers 404 NOT_FOUND outside the /v1 base path', async () => {
    const response = await fetch(api.gateway.baseUrl.replace('/v1', '/v2/pets'));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});

describe('resilience', () => {
  it('answers a malformed HTTP request with a 400 Error object and keeps serving', async () => {
    const raw = await rawExchange(api.gateway.port, 'NOT HTTP AT ALL\r\n\r\n');

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
});

describe('what a request body and query may carry, end to end', () => {
  /** A create with raw bytes and headers, as fetch sends them; the answer as JSON. */
  const create = async (body: Uint8Array | string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api.gateway.baseUrl}/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.apiKey}`, 'Content-Type': 'application/json', ...headers },
      body,
    });
    return {
      status: response.status,
      headers: response.headers,
      json: (await response.json()) as { id?: number; code?: string },
    };
  };

  it('refuses a body sent with a content coding with 415, the coded bytes or not, and creates nothing', async () => {
    const json = JSON.stringify({ name: 'Coded', categoryId: 3 });
    const before = await create(json);

    const plainButSaidCoded = await create(json, { 'Content-Encoding': 'gzip' });
    const coded = await create(new Uint8Array(gzipSync(json)), { 'Content-Encoding': 'gzip' });
    const after = await create(json, { 'Content-Encoding': 'identity' });

    for (const refused of [plainButSaidCoded, coded]) {
      expect([refused.status, refused.json.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
      expect(refused.headers.get('accept-encoding')).toBe('identity');
      expect(responseHeaderProblems(refused)).toEqual([]);
    }
    // No id was used in between: nothing was created.
    expect([before.status, after.status, after.json.id]).toEqual([201, 201, (before.json.id ?? 0) + 1]);
  });

  it('refuses a body that is not UTF-8 with 400 INVALID_JSON, and creates nothing', async () => {
    const before = await create(JSON.stringify({ name: 'Before', categoryId: 3 }));
    const refused = await Promise.all(
      [
        [0xff, 0xfe, 0xc3],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0xef, 0xbf, 0xbd],
      ].map((bytes) =>
        create(
          new Uint8Array(
            Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('","categoryId":3}')]),
          ),
        ),
      ),
    );
    const after = await create(JSON.stringify({ name: 'Zoë 🐶', categoryId: 3 }));

    expect(refused.map(({ status, json }) => [status, json.code])).toEqual(
      Array(4).fill([400, 'INVALID_JSON']),
    );
    expect([after.status, after.json.id]).toEqual([201, (before.json.id ?? 0) + 1]);
  });

  it('refuses a categoryId a double would round into another value with 400 naming it, and creates nothing', async () => {
    const before = await create(JSON.stringify({ name: 'Before', categoryId: 3 }));
    const refused = await Promise.all(
      ['1.0000000000000001', '9007199254740990.9', '9007199254740993', '1e400'].map((number) =>
        create(`{"name":"Rounded","categoryId":${number}}`),
      ),
    );
    const exact = await create('{"name":"Exact","categoryId":1.0e1}');

    for (const { status, json } of refused) {
      expect([status, json.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect((json as { details?: unknown }).details).toEqual([
        {
          field: 'body.categoryId',
          message: expect.stringMatching(/^must be a number the service can hold exactly/),
        },
      ]);
    }
    expect([exact.status, exact.json]).toEqual([201, expect.objectContaining({ categoryId: 10 })]);
    expect(exact.json.id).toBe((before.json.id ?? 0) + 1);
  });

  it('refuses a name that is not well-formed Unicode, and counts its length in characters, not UTF-16 units', async () => {
    const loneSurrogate = await create('{"name":"a\\ud800","categoryId":3}');
    const emoji = await create(JSON.stringify({ name: '🐕'.repeat(150), categoryId: 3 }));

    expect([loneSurrogate.status, loneSurrogate.json.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((loneSurrogate.json as { details?: unknown }).details).toEqual([
      {
        field: 'body.name',
        message: 'must be well-formed Unicode text: no lone surrogate (U+D800 to U+DFFF)',
      },
    ]);
    expect(emoji.status).toBe(201);
    expect((emoji.json as { name?: string }).name).toBe('🐕'.repeat(150));
  });

  it('refuses unknown query parameters on every operation, naming each', async () => {
    const created = await client.post('/pets?status=sold&foo=bar', { name: 'Rex', categoryId: 3 });
    const read = await client.get('/pets/1?foo=bar');
    const listed = await client.get('/pets?foo=bar');

    assertError(created, 400, 'VALIDATION_FAILED');
    expect(detailsOf(created).map(({ field }) => field)).toEqual(['query.status', 'query.foo']);
    for (const response of [read, listed]) {
      assertError(response, 400, 'VALIDATION_FAILED');
      expect(detailsOf(response)).toEqual([
        { field: 'query.foo', message: 'is not a known query parameter' },
      ]);
    }
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
