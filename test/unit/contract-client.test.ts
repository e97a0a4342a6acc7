import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient, Pacer, QuotaExhausted, SUITE_USER_AGENT } from '#tools/contract/api-client';
import { VirtualClock } from '../support/virtual-clock';

/**
 * The contract suite's client as a deployed stage meets it: what it sends, and how it takes a 429.
 * Its waits (Retry-After, its pace) pass on a clock of the test's, which stamps each request the
 * server receives: no real seconds go by.
 */

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
  vi.stubGlobal('fetch', clock.fetch);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const answers: { status: number; body: object; headers?: Record<string, string> }[] = [];
const received: { at: number; headers: IncomingHttpHeaders }[] = [];
const server = createServer((request, response) => {
  received.push({ at: clock.now(), headers: request.headers });
  const answer = answers.shift() ?? { status: 200, body: [] };
  response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
  response.end(JSON.stringify(answer.body));
});
let baseUrl: string;
beforeAll(async () => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

const paced = () => new ApiClient(baseUrl, 'psk_test', () => undefined, new Pacer(clock));

describe("the contract suite's client", () => {
  it('sends a User-Agent, which AWS’s managed rules block requests without', async () => {
    received.length = 0;

    await paced().get('/pets');

    expect(received[0]?.headers['user-agent']).toBe(SUITE_USER_AGENT);
  });

  it('waits out a 429 TOO_MANY_REQUESTS for its Retry-After, then gets the answer', async () => {
    received.length = 0;
    answers.push({ status: 429, body: { code: 'TOO_MANY_REQUESTS' }, headers: { 'Retry-After': '1' } });

    const answer = await paced().get('/pets');

    expect(answer.status).toBe(200);
    expect(received).toHaveLength(2);
    expect((received[1]?.at ?? 0) - (received[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  it('sends a create again after a 503 and its Retry-After, under the same Idempotency-Key', async () => {
    received.length = 0;
    answers.push({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' }, headers: { 'Retry-After': '1' } });

    const answer = await paced().post('/pets', { name: 'Rex', categoryId: 1 });

    expect(answer.status).toBe(200);
    expect(received).toHaveLength(2);
    const keys = received.map(({ headers }) => headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect((received[1]?.at ?? 0) - (received[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  it('gives back a 503 of a write it cannot safely repeat (no Idempotency-Key) as it is', async () => {
    received.length = 0;
    answers.push({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' }, headers: { 'Retry-After': '1' } });

    const answer = await paced().request('/pets/1', { method: 'DELETE' });

    expect(answer.status).toBe(503);
    expect(received).toHaveLength(1);
  });

  it('stops on a spent quota: QUOTA_EXCEEDED is not retried', async () => {
    received.length = 0;
    answers.push({ status: 429, body: { code: 'QUOTA_EXCEEDED' }, headers: { 'Retry-After': '3600' } });

    await expect(paced().get('/pets')).rejects.toBeInstanceOf(QuotaExhausted);
    expect(received).toHaveLength(1);
  });

  it('keeps to the rate its first RateLimit-Policy names: 4 at once and 2 a second, once learnt', async () => {
    const client = paced();
    answers.push({
      status: 200,
      body: [],
      headers: { 'RateLimit-Policy': '"slow";q=100;w=86400, "slow-rate";q=4;w=2' },
    });
    await client.get('/pets');
    received.length = 0;

    await Promise.all(Array.from({ length: 5 }, () => client.get('/pets')));

    // With the request that taught it, three at once (one below the burst), then one every half second.
    expect((received[1]?.at ?? 0) - (received[0]?.at ?? 0)).toBeLessThan(400);
    expect((received[4]?.at ?? 0) - (received[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(received.map(({ at }) => at - (received[0]?.at ?? 0))).toEqual([0, 0, 500, 1_000, 1_500]);
  });

  it('sends one request at a time until an answer names the plan, so it never sends more than the burst before knowing it', async () => {
    const client = paced();
    answers.push(
      { status: 200, body: [] },
      { status: 200, body: [], headers: { 'RateLimit-Policy': '"slow";q=100;w=86400, "slow-rate";q=4;w=2' } },
    );
    received.length = 0;

    await Promise.all(Array.from({ length: 5 }, () => client.get('/pets')));

    // Two learners one after the other, then two more at once (one below the burst, the second
    // learner counted), then the rate: had all five gone at once, the burst of 4 was exceeded.
    expect(received.map(({ at }) => at - (received[0]?.at ?? 0))).toEqual([0, 0, 0, 0, 500]);
  });

  it('gives a 429 back as it is when it has no pacer, for the check that provokes one', async () => {
    answers.push({ status: 429, body: { code: 'TOO_MANY_REQUESTS' }, headers: { 'Retry-After': '1' } });

    expect((await new ApiClient(baseUrl, 'psk_test').get('/pets')).status).toBe(429);
  });
});
