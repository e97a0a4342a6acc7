import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ApiClient, ObservedExchange } from './api-client';
import { assertError, detailsOf } from './assertions';
import { type ContractArea, creating, eachCase } from './check';
import { smokeName } from './target';

/** `POST /pets` with an `Idempotency-Key`, as a client retrying after a timeout sees it. */

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

/**
 * `POST /pets` with `key`, sent again as a client does when the service answers that it is too
 * busy (503 or 429, every one with `Retry-After`): after the seconds it says, at most 5 times. A
 * stage, or a local server on a busy machine, may answer any request so; a retry with the same
 * key is what makes that safe.
 */
const postAsClient = async (api: ApiClient, body: unknown, key: string): Promise<ObservedExchange> => {
  for (let attempt = 1; ; attempt += 1) {
    const response = await api.post('/pets', body, withKey(key));
    if ((response.status !== 503 && response.status !== 429) || attempt === 5) return response;
    await new Promise((wait) => setTimeout(wait, Number(response.headers.get('retry-after')) * 1_000));
  }
};

export const IDEMPOTENCY_AREA: ContractArea = {
  area: 'POST /pets with an Idempotency-Key',
  checks: [
    creating(
      'answers a repeat with the first 201, its body and Location, plus Idempotent-Replayed',
      async ({ api }) => {
        const key = randomUUID();
        const body = { name: smokeName('replay'), categoryId: 4, status: 'pending' };

        const first = await api.post('/pets', body, withKey(key));
        const repeat = await api.post('/pets', body, withKey(key));

        assert.equal(first.status, 201);
        assert.equal(first.headers.get('idempotent-replayed'), null);
        assert.equal(repeat.status, 201);
        assert.equal(repeat.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(repeat.json, first.json);
        assert.equal(repeat.headers.get('location'), first.headers.get('location'));
      },
    ),

    creating('treats the same JSON written differently as the same body', async ({ api }) => {
      const name = smokeName('spacing');
      const headers = { 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' };

      const first = await api.post('/pets', `{"name":"${name}","categoryId":5}`, { headers });
      const repeat = await api.post('/pets', `{ "categoryId": 5,\n  "name": "${name}" }`, { headers });

      assert.equal(repeat.status, 201);
      assert.equal(repeat.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(repeat.json, first.json);
    }),

    creating(
      'answers 422 IDEMPOTENCY_KEY_REUSED for the key with another body, and keeps the first answer',
      async ({ api }) => {
        const key = randomUUID();
        const original = { name: smokeName('original'), categoryId: 1 };
        const first = await api.post('/pets', original, withKey(key));

        const reused = await api.post('/pets', { name: smokeName('other'), categoryId: 1 }, withKey(key));
        const retry = await api.post('/pets', original, withKey(key));

        assertError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
        assert.equal(retry.status, 201);
        assert.equal(retry.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(retry.json, first.json);
      },
    ),

    creating(
      'gives 20 concurrent requests with one key one pet: the others replay it or answer 409 with Retry-After',
      async ({ api }) => {
        const key = randomUUID();
        const body = { name: smokeName('stampede'), categoryId: 9 };

        const responses = await Promise.all(Array.from({ length: 20 }, () => postAsClient(api, body, key)));

        const created = responses.filter((response) => response.status === 201);
        const busy = responses.filter((response) => response.status === 409);
        assert.equal(created.length + busy.length, 20);
        assert.equal(
          created.filter((response) => response.headers.get('idempotent-replayed') === null).length,
          1,
        );
        assert.equal(new Set(created.map((response) => JSON.stringify(response.json))).size, 1);
        for (const response of busy) {
          assertError(response, 409, 'IDEMPOTENCY_KEY_IN_USE');
          assert.equal(response.headers.get('retry-after'), '1');
        }
        const after = await api.post('/pets', body, withKey(key));
        assert.deepEqual(after.json, created[0]?.json);
      },
    ),

    creating('does not remember a failure: a retry after a 400 is processed anew', async ({ api }) => {
      const key = randomUUID();

      const refused = await api.post('/pets', { name: '', categoryId: 1 }, withKey(key));
      const retried = await api.post('/pets', { name: smokeName('second-try'), categoryId: 1 }, withKey(key));

      assertError(refused, 400, 'VALIDATION_FAILED');
      assert.equal(retried.status, 201);
      assert.equal(retried.headers.get('idempotent-replayed'), null);
    }),

    creating('adds a pet per request without the header', async ({ api }) => {
      const body = { name: smokeName('no-key'), categoryId: 3 };

      const first = await api.post('/pets', body);
      const second = await api.post('/pets', body);

      assert.deepEqual([first.status, second.status], [201, 201]);
      assert.notEqual((second.json as { id: number }).id, (first.json as { id: number }).id);
    }),

    ...eachCase(
      [
        ['empty', ''],
        ['256 characters long', 'k'.repeat(256)],
        ['not ASCII', 'clé-1'],
        ['a control character', 'key\twith-tab'],
      ],
      ([what]) => `answers 400 VALIDATION_FAILED on headers.idempotency-key for a key that is ${what}`,
      async ({ api }, [_what, key]) => {
        const response = await api.post('/pets', { name: smokeName('bad-key'), categoryId: 1 }, withKey(key));

        assertError(response, 400, 'VALIDATION_FAILED');
        assert.deepEqual(detailsOf(response), [
          { field: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
        ]);
      },
    ),

    creating('accepts a key of 255 printable ASCII characters', async ({ api }) => {
      const key = `${randomUUID()} ~!`.padEnd(255, '#');

      const response = await api.post('/pets', { name: smokeName('long-key'), categoryId: 1 }, withKey(key));

      assert.equal(response.status, 201);
    }),
  ],
};
