import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '#shared/auth/api-key';
import type { ProxyHandler } from '#shared/lambda';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { apiKeysOf } from '../support/tables';

/**
 * `npm start` where it must behave as Lambda does under load: a function that hangs is ended at
 * its timeout, and one key's burst does not starve another key (Lambda would scale out and
 * serve both; the local server shares its turns between callers). docs/aws-ledger.md says how
 * each follows AWS and where it differs.
 */

let api: LocalApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Far beyond any wait here, even on a busy machine: a request still unanswered then never will be. */
const NO_ANSWER_MS = 20_000;

const BURST = 1_500;

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/**
 * Another program that sends BURST GETs at once, each on a connection of its own, and exits when
 * every one is answered. A process of its own: from this one, the server's own work would hold
 * the requests back, and they would arrive about as fast as they are answered.
 */
const BURST_CLIENT = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const headers = { Authorization: 'Bearer ' + process.env.BURST_KEY };
const one = () => new Promise((resolve) => {
  const request = http.request(process.env.BURST_URL, { agent, headers }, (response) => {
    response.resume();
    response.on('end', resolve);
  });
  request.on('error', resolve);
  request.end();
});
Promise.all(Array.from({ length: Number(process.env.BURST) }, one));
`;

describe('a function still running at its timeout', () => {
  it('is ended then: API Gateway answers 500 INTERNAL_ERROR, and its later answer reaches no one', async () => {
    const timeoutMs = 300;
    let answerLate: (() => void) | undefined;
    // A function that hangs until the test lets it answer: the one part not real.
    const hung: ProxyHandler = () =>
      new Promise((resolve) => {
        answerLate = () => resolve({ statusCode: 200, headers: {}, body: '{"late":true}' });
      });
    api = await startLocalApi('hung-function', {
      functionTimeoutMs: timeoutMs,
      handlers: () => ({ getPet: hung }),
    });

    const started = performance.now();
    const response = await fetch(`${api.gateway.baseUrl}/pets/1`, {
      headers: bearer(api.apiKey),
      signal: AbortSignal.timeout(NO_ANSWER_MS),
    });
    const tookMs = performance.now() - started;
    answerLate?.();
    // On the same keep-alive connection: its own answer, not the late one.
    const again = await fetch(`${api.gateway.baseUrl}/pets/1`, {
      headers: bearer(api.apiKey),
      signal: AbortSignal.timeout(NO_ANSWER_MS),
    });

    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    expect(tookMs).toBeGreaterThanOrEqual(timeoutMs);
    expect(answerLate).toBeDefined();
    expect([again.status, await again.json()]).toEqual([
      500,
      expect.objectContaining({ code: 'INTERNAL_ERROR' }),
    ]);
  });
});

describe("one key's burst", () => {
  it('leaves another key served, 5 of 5, while it sends 1,500 requests at once', async () => {
    const other = generateApiKey('fair-turns other');
    // The burst's first turns are held, real listPets behind them, until the other key's requests
    // are in: then every burst request is still waiting its turn, however fast this machine answers.
    let letBurstOn: () => void = () => undefined;
    const burstHeld = new Promise<void>((resolve) => {
      letBurstOn = resolve;
    });
    api = await startLocalApi('fair-turns', {
      handlers: (_, real) => ({
        listPets: async (event, context) => {
          if (event.requestContext.authorizer?.principalId !== other.record.keyId) await burstHeld;
          return (real.listPets as ProxyHandler)(event, context);
        },
      }),
    });
    await apiKeysOf(api.tables).put(other.record);
    const { apiKey } = api;
    const { baseUrl } = api.gateway;
    // Seen, not changed: the requests as the server receives and answers them.
    let burstReceived = 0;
    let burstAnswered = 0;
    let otherReceived = 0;
    let otherAnswered = 0;
    let burstAnsweredWhenOtherWas: number | undefined;
    let allReceived: () => void = () => undefined;
    const received = new Promise<void>((resolve) => {
      allReceived = resolve;
    });
    api.gateway.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (request.headers.authorization === `Bearer ${other.key}`) {
        otherReceived += 1;
        if (otherReceived === 5) letBurstOn();
        response.once('finish', () => {
          otherAnswered += 1;
          if (otherAnswered === 5) burstAnsweredWhenOtherWas = burstAnswered;
        });
        return;
      }
      if (request.headers.authorization !== `Bearer ${apiKey}`) return;
      response.once('finish', () => {
        burstAnswered += 1;
      });
      burstReceived += 1;
      if (burstReceived === BURST) allReceived();
    });

    const burst = spawn(process.execPath, ['-e', BURST_CLIENT], {
      env: { ...process.env, BURST_URL: `${baseUrl}/pets?limit=1`, BURST_KEY: apiKey, BURST: String(BURST) },
      stdio: 'inherit',
    });
    const burstDone = once(burst, 'exit');
    // The other key asks once the whole burst is in, waiting its turn.
    await received;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${baseUrl}/pets?limit=1`, {
          headers: bearer(other.key),
          signal: AbortSignal.timeout(NO_ANSWER_MS),
        }),
      ),
    );
    await burstDone;

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(burstAnswered).toBe(BURST);
    // Its five were answered between the burst's, at most a round of turns after they came in:
    // a queue in order of arrival would have answered all 1,500 first.
    expect(burstAnsweredWhenOtherWas).toBeLessThan(BURST / 2);
  }, 120_000);
});
