import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { generateApiKey } from '#shared/auth/api-key';
import { FairUse } from '#tools/local/fair-use';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { TEST_PLANS } from '../support/plans';
import { apiKeysOf } from '../support/tables';
import { VirtualClock } from '../support/virtual-clock';

/**
 * docs/guide.md's client that paces itself by RateLimit-Policy and backs off on 429, run as
 * written against the local server, which enforces plans as API Gateway does: the guide's code
 * stays true, or this fails.
 */

interface GuideClient {
  fetchPaced(url: string, init: RequestInit, attempts?: number): Promise<Response>;
  readPets(ids: readonly number[], headers: Record<string, string>): Promise<unknown[]>;
}

/**
 * The first js block of the guide's "Your plan" section, its functions returned; its `fetch` is
 * the global one, counted, and its `setTimeout` waits in the time of the clock the local
 * gateway's plans are kept on: the pauses it asks for pass there, not in real seconds.
 */
const guideClient = (api: string, sent: { count: number }): GuideClient => {
  const guide = readFileSync(join(PROJECT_ROOT, 'docs/guide.md'), 'utf8');
  const section = guide.slice(guide.indexOf('\n## Your plan'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('No js block in "Your plan"');
  const counted: typeof fetch = (input, init) => {
    sent.count += 1;
    return clock.fetch(input, init);
  };
  const setTimeout = (done: () => void, ms: number) => void clock.sleep(ms).then(done);
  return new Function('api', 'fetch', 'setTimeout', `${code}\nreturn { fetchPaced, readPets };`)(
    api,
    counted,
    setTimeout,
  ) as GuideClient;
};

const clock = new VirtualClock();
let local: LocalApi;
const keyOn = async (plan: string): Promise<string> => {
  const { key, record } = generateApiKey(`guide ${plan}`);
  await apiKeysOf(local.tables).put({ ...record, plan });
  return key;
};
beforeAll(async () => {
  local = await startLocalApi('guide', { fairUse: new FairUse(TEST_PLANS, clock.now) });
});
afterAll(() => local?.close());

describe("the guide's client", () => {
  it('reads pets paced by its plan, waiting out any 429 TOO_MANY_REQUESTS, and gets every one', async () => {
    const ids: number[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      ids.push(((await local.client.post('/pets', { name, categoryId: 1 })).json as { id: number }).id);
    }
    // slow: 1 request a second, a burst of 2.
    const headers = { Authorization: `Bearer ${await keyOn('slow')}` };

    const pets = await guideClient(local.gateway.baseUrl, { count: 0 }).readPets(ids, headers);

    expect(pets.map((pet) => (pet as { id: number }).id)).toEqual(ids);
  });

  it('gives up at once on 429 QUOTA_EXCEEDED instead of waiting an hour', async () => {
    // tight: 5 requests a day, at 1 a second (burst 2): the guide's client waits out the rate.
    const headers = { Authorization: `Bearer ${await keyOn('tight')}` };
    const sent = { count: 0 };
    const client = guideClient(local.gateway.baseUrl, sent);
    for (let read = 0; read < 5; read += 1) {
      expect((await client.fetchPaced(`${local.gateway.baseUrl}/pets?limit=1`, { headers })).status).toBe(
        200,
      );
    }
    sent.count = 0;

    const refused = await client.fetchPaced(`${local.gateway.baseUrl}/pets?limit=1`, { headers });

    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('QUOTA_EXCEEDED');
    expect(refused.headers.get('retry-after')).toBe('3600');
    // Sent once, not retried: a quota does not come back in seconds.
    expect(sent.count).toBe(1);
  });
});
