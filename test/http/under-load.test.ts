import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyHandler } from '#shared/lambda';
import { type LocalApi, startLocalApi } from '../support/local-api';

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

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

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
