import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#shared/auth/api-key';
import type { ApiClient, ObservedExchange } from '#tools/contract/api-client';
import { FairUse } from '#tools/local/fair-use';
import { checkedClient, type LocalApi, startLocalApi } from '../support/local-api';
import { rawExchange } from '../support/network';
import { ROOMY_POLICY, TEST_PLANS } from '../support/plans';
import { apiKeysOf } from '../support/tables';

/**
 * The local server as a noisy neighbour meets it: each key held to its own plan, the answers a
 * client paces itself by, and a request id on every answer. The plans' clock is the test's, moved
 * by hand: what is refused never depends on how fast this machine sends.
 */

let now = Date.UTC(2026, 5, 1, 10, 0, 0);
const advance = (ms: number) => {
  now += ms;
};

let api: LocalApi;
/** A key on `tight` (rate 1 a second, burst 2, quota 5 a day): the noisy neighbour. */
let noisy: ApiClient;
/** The local API's own key, on `roomy`. */
let quiet: ApiClient;
beforeAll(async () => {
  api = await startLocalApi('fair-use', { fairUse: new FairUse(TEST_PLANS, () => now) });
  const { key, record } = generateApiKey('noisy neighbour');
  await apiKeysOf(api.tables).put({ ...record, plan: 'tight' });
  noisy = checkedClient(api.gateway.baseUrl, key);
  quiet = api.client;
});
afterAll(() => api?.close());

const statuses = (responses: readonly ObservedExchange[]) =>
  responses.map((response) => response.status).sort();
const codeOf = (response: ObservedExchange) => (response.json as { code?: string } | undefined)?.code;

describe('a key that sends faster than its plan', () => {
  it('gets 429 TOO_MANY_REQUESTS with Retry-After past its burst, while another key keeps getting 200 at the same time', async () => {
    const [fromNoisy, fromQuiet] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => noisy.get('/pets?limit=1'))),
      Promise.all(Array.from({ length: 6 }, () => quiet.get('/pets?limit=1'))),
    ]);

    expect(statuses(fromNoisy)).toEqual([200, 200, 429, 429, 429, 429]);
    expect(statuses(fromQuiet)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const refused of fromNoisy.filter((response) => response.status === 429)) {
      expect(codeOf(refused)).toBe('TOO_MANY_REQUESTS');
      expect(refused.headers.get('retry-after')).toBe('1');
      // A gateway response: no header from the request's context (docs/aws-ledger.md).
      expect(refused.headers.get('ratelimit-policy')).toBeNull();
      expect((refused.json as { requestId?: string }).requestId).toBe(refused.headers.get('x-amz-apigw-id'));
    }
  });

  it('is served again once Retry-After has passed', async () => {
    advance(1_000);

    expect((await noisy.get('/pets?limit=1')).status).toBe(200);
  });

  it('gets 429 QUOTA_EXCEEDED once its plan quota is used, with Retry-After, until the next day', async () => {
    // 3 of the 5 a day are spent; two more, a second apart (so the rate allows them).
    for (const _ of [1, 2]) {
      advance(1_000);
      expect((await noisy.get('/pets?limit=1')).status).toBe(200);
    }
    advance(1_000);

    const refused = await noisy.get('/pets?limit=1');

    expect(refused.status).toBe(429);
    expect(codeOf(refused)).toBe('QUOTA_EXCEEDED');
    expect(refused.headers.get('retry-after')).toBe('3600');
    expect((await quiet.get('/pets?limit=1')).status).toBe(200);
    advance(24 * 3_600_000);
    expect((await noisy.get('/pets?limit=1')).status).toBe(200);
  });

  it('is refused before its request costs anything: a throttled create adds no pet', async () => {
    advance(10_000);
    const before = ((await quiet.get('/pets?limit=100')).json as unknown[]).length;

    const creates = await Promise.all(
      Array.from({ length: 4 }, (_, index) => noisy.post('/pets', { name: `noisy-${index}`, categoryId: 1 })),
    );

    const created = creates.filter((response) => response.status === 201).length;
    expect(statuses(creates).filter((status) => status === 429)).toHaveLength(4 - created);
    expect(((await quiet.get('/pets?limit=100')).json as unknown[]).length).toBe(before + created);
  });
});

describe('every answer', () => {
  it("to an accepted key carries its plan's RateLimit-Policy: successes, errors and API Gateway's own 405", async () => {
    advance(10_000);
    const answers = [
      await quiet.get('/pets?limit=1'),
      await quiet.get('/pets?limit=0'),
      await quiet.get('/pets/999999'),
      await quiet.request('/pets', { method: 'DELETE' }),
      await quiet.post('/pets', 'name=Rex', { headers: { 'Content-Type': 'text/plain' } }),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 404, 405, 415]);
    for (const answer of answers) expect(answer.headers.get('ratelimit-policy')).toBe(ROOMY_POLICY);
  });

  it('carries a request id of its own, the Error body’s requestId, whoever answers: in x-amz-apigw-id always, in Request-Id from a function or a mock', async () => {
    const answers = [
      await quiet.get('/pets?limit=1'),
      await quiet.get('/pets?limit=0'),
      await quiet.get('/pets', { anonymous: true }),
      await quiet.get('/nowhere'),
      await quiet.request('/pets', { method: 'DELETE' }),
      await quiet.request('/pets', {
        method: 'OPTIONS',
        anonymous: true,
        headers: { Origin: 'http://localhost:5173' },
      }),
    ];

    const ids = answers.map((answer) => answer.headers.get('x-amz-apigw-id'));
    expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z0-9+/]{15}=$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(answers.map((answer) => answer.headers.get('request-id'))).toEqual([
      ids[0],
      ids[1],
      null, // API Gateway's 401
      null, // API Gateway's 404
      ids[4],
      ids[5],
    ]);
    for (const answer of answers.filter((candidate) => candidate.status >= 400)) {
      expect((answer.json as { requestId?: string }).requestId).toBe(answer.headers.get('x-amz-apigw-id'));
    }
  });

  it('carries an id the gateway made, whatever X-Amzn-RequestId the client sends (in AWS it sets only $context.requestId)', async () => {
    const chosen = '00000000-0000-4000-8000-000000000000';
    const answers = [
      await quiet.get('/pets?limit=1', { headers: { 'X-Amzn-RequestId': chosen } }),
      await quiet.get('/pets', { anonymous: true, headers: { 'X-Amzn-RequestId': chosen } }),
    ];

    for (const answer of answers) {
      expect(answer.headers.get('x-amz-apigw-id')).toMatch(/^[A-Za-z0-9+/]{15}=$/);
      expect(answer.text).not.toContain(chosen);
      expect([...answer.headers.values()]).not.toContain(chosen);
    }
  });

  it('without an accepted key names no plan', async () => {
    const refused = await quiet.get('/pets', {
      anonymous: true,
      headers: { Authorization: 'Bearer psk_unknown' },
    });

    expect(refused.status).toBe(401);
    expect(refused.headers.get('ratelimit-policy')).toBeNull();
  });

  it('to a request Node cannot even parse carries a Request-Id, in the header and the Error body', async () => {
    const raw = await rawExchange(api.gateway.port, 'NOT HTTP\r\n\r\n');

    const id = /^Request-Id: (.+)\r$/m.exec(raw)?.[1];
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(id).toMatch(/^[A-Za-z0-9+/]{15}=$/);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ requestId: id });
  });
});
