import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#shared/auth/api-key';
import type { Scope } from '#shared/auth/scopes';
import { GATEWAY_RESPONSES } from '#shared/http/gateway-behaviour';
import type { ApiClient, ObservedExchange } from '#tools/contract/api-client';
import { assertError } from '#tools/contract/assertions';
import { checkedClient, type LocalApi, startLocalApi } from '../support/local-api';
import { apiKeysOf } from '../support/tables';

/**
 * Keys that hold some scopes, in front of the real authorizer and handlers: the local gateway
 * evaluates the authorizer's policy as API Gateway does, the decision it would have cached
 * included, and refuses a method outside the key's scopes with API Gateway's own 403.
 */

const ORIGIN = 'http://localhost:5173';

let api: LocalApi;
/** The API's own key: made without scopes, so it holds every scope. */
let full: ApiClient;
let reader: ApiClient;
let writer: ApiClient;

const keyHolding = async (name: string, scopes: readonly Scope[]) => {
  const { key, record } = generateApiKey(name);
  await apiKeysOf(api.tables).put({ ...record, scopes });
  return { key, record, client: checkedClient(api.gateway.baseUrl, key) };
};

beforeAll(async () => {
  api = await startLocalApi('scopes', { corsOrigins: [ORIGIN] });
  full = api.client;
  reader = (await keyHolding('reader', ['read:pets'])).client;
  writer = (await keyHolding('writer', ['write:pets'])).client;
});
afterAll(() => api.close());

const createPet = async (name: string) => {
  const created = await full.post('/pets', { name, categoryId: 3 });
  expect(created.status).toBe(201);
  return created.json as { id: number };
};

/** API Gateway's own 403: the Error object, its request id in the body and x-amz-apigw-id, no Request-Id. */
const expectLacksScope = (response: ObservedExchange) => {
  assertError(response, 403, 'FORBIDDEN');
  const body = response.json as { message: string; requestId: string };
  expect(body.message).toBe(GATEWAY_RESPONSES.ACCESS_DENIED.message);
  expect(body.requestId).toBe(response.headers.get('x-amz-apigw-id'));
  expect(response.headers.get('request-id')).toBeNull();
};

describe('a read-only key (read:pets)', () => {
  it('lists and gets pets', async () => {
    const pet = await createPet('Readable');

    expect((await reader.get('/pets?limit=1')).status).toBe(200);
    const read = await reader.get(`/pets/${pet.id}`);
    expect([read.status, (read.json as { id: number }).id]).toEqual([200, pet.id]);
  });

  it('is refused every change with 403 FORBIDDEN before any function runs, and nothing changes', async () => {
    const pet = await createPet('Unchanged');
    const before = await full.get(`/pets/${pet.id}`);
    const etag = before.headers.get('etag') ?? '';

    const refused = [
      await reader.post('/pets', { name: 'Intruder', categoryId: 3 }),
      await reader.request(`/pets/${pet.id}`, {
        method: 'PATCH',
        headers: { 'If-Match': etag, 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ status: 'sold' }),
      }),
      await reader.request(`/pets/${pet.id}`, { method: 'DELETE', headers: { 'If-Match': etag } }),
    ];

    for (const response of refused) expectLacksScope(response);
    const after = await full.get(`/pets/${pet.id}`);
    expect([after.status, after.json, after.headers.get('etag')]).toEqual([200, before.json, etag]);
    const named = (await full.get('/pets?limit=100')).json as { name: string }[];
    expect(named.map((listed) => listed.name)).not.toContain('Intruder');
  });

  it('is refused a write made just after a read it was allowed: the decision cached for the read does not let the write through', async () => {
    const { client } = await keyHolding('cached reader', ['read:pets']);

    expect((await client.get('/pets?limit=1')).status).toBe(200);
    expectLacksScope(await client.post('/pets', { name: 'Through the cache', categoryId: 3 }));
    expect((await client.get('/pets?limit=1')).status).toBe(200);
  });

  it('is refused a method its scopes do not reach where a full key gets the 405 of the resource', async () => {
    expectLacksScope(await reader.request('/pets', { method: 'DELETE' }));
    assertError(await full.request('/pets', { method: 'DELETE' }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('lets an allowed origin read its 403, as any of API Gateway’s own errors', async () => {
    const refused = await reader.post(
      '/pets',
      { name: 'Cross-origin', categoryId: 3 },
      { headers: { Origin: ORIGIN } },
    );

    expectLacksScope(refused);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(refused.headers.get('access-control-expose-headers')).toContain('x-amz-apigw-id');
  });

  it('is 401 UNAUTHORIZED, not 403, once revoked', async () => {
    const { record, client } = await keyHolding('revoked reader', ['read:pets']);
    expect((await client.get('/pets?limit=1')).status).toBe(200);

    await apiKeysOf(api.tables).revoke(record.keyId, new Date().toISOString());

    assertError(await client.get('/pets?limit=1'), 401, 'UNAUTHORIZED');
    assertError(await client.post('/pets', { name: 'Revoked', categoryId: 3 }), 401, 'UNAUTHORIZED');
  });
});

describe('a write-only key (write:pets)', () => {
  it('creates, changes and removes pets, and is refused reads with 403 FORBIDDEN', async () => {
    const created = await writer.post('/pets', { name: 'Written', categoryId: 3 });
    expect(created.status).toBe(201);
    const { id } = created.json as { id: number };
    const etag = created.headers.get('etag') ?? '';

    const changed = await writer.request(`/pets/${id}`, {
      method: 'PATCH',
      headers: { 'If-Match': etag, 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ status: 'sold' }),
    });
    expect(changed.status).toBe(200);
    expectLacksScope(await writer.get(`/pets/${id}`));
    expectLacksScope(await writer.get('/pets'));
    const removed = await writer.request(`/pets/${id}`, {
      method: 'DELETE',
      headers: { 'If-Match': changed.headers.get('etag') ?? '' },
    });
    expect(removed.status).toBe(204);
    assertError(await full.get(`/pets/${id}`), 404, 'NOT_FOUND');
  });
});

describe('a key made without scopes', () => {
  it('does everything, and names its plan on every answer as before', async () => {
    const created = await full.post('/pets', { name: 'Full', categoryId: 3 });
    const { id } = created.json as { id: number };
    const read = await full.get(`/pets/${id}`);
    const removed = await full.request(`/pets/${id}`, {
      method: 'DELETE',
      headers: { 'If-Match': read.headers.get('etag') ?? '' },
    });

    expect([created.status, read.status, removed.status]).toEqual([201, 200, 204]);
    for (const answer of [created, read, removed])
      expect(answer.headers.get('ratelimit-policy')).toBeTruthy();
  });
});
