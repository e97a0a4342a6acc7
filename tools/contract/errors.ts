import assert from 'node:assert/strict';
import { listPets } from '#functions/list-pets';
import { assertError, detailsOf } from './assertions';
import { type ContractArea, check } from './check';

/** Request errors beyond each operation's contract (operations.ts) where API Gateway has its part. */

const LIST = listPets.path;

export const AUTHENTICATION_AREA: ContractArea = {
  area: 'authentication',
  checks: [
    check(
      'answers 401 UNAUTHORIZED to an unknown key, another scheme, an empty bearer or a bare key, echoing none',
      async ({ api }) => {
        for (const authorization of [
          'Bearer psk_not-a-key',
          'Basic dXNlcjpwYXNz',
          'Bearer ',
          'psk_not-a-key',
        ]) {
          const response = await api.get(LIST, {
            anonymous: true,
            headers: { Authorization: authorization },
          });

          assertError(response, 401, 'UNAUTHORIZED');
          assert.doesNotMatch(response.text, /not-a-key/);
        }
      },
    ),
    check('accepts the bearer scheme in any case', async ({ api, apiKey }) => {
      const response = await api.get(`${LIST}?limit=1`, {
        anonymous: true,
        headers: { authorization: `BEARER ${apiKey}` },
      });

      assert.equal(response.status, 200);
    }),
  ],
};

export const ROUTING_AREA: ContractArea = {
  area: 'routing',
  checks: [
    check('answers 404 NOT_FOUND for a path the API does not have', async ({ api }) => {
      for (const path of ['/nope', `${LIST}/1/owner`, '/', `${LIST}//1`])
        assertError(await api.get(path), 404, 'NOT_FOUND');
    }),
    check(`serves ${LIST}/ (a trailing slash) as ${LIST}`, async ({ api }) => {
      const response = await api.get(`${LIST}/?limit=1`);

      assert.equal(response.status, 200);
      assert.ok(Array.isArray(response.json), `Expected a list, got ${response.text}`);
    }),
    check('answers a query parameter given twice with 400 naming it, never picking one', async ({ api }) => {
      const response = await api.get(`${LIST}?limit=5&limit=6`);

      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(detailsOf(response), [{ field: 'query.limit', message: 'must be given once' }]);
    }),
    check(
      'answers a 10 kB unknown query name with a 400 that echoes 64 characters of it',
      async ({ api }) => {
        const response = await api.get(`${LIST}?${'q'.repeat(10_000)}=1`);

        assertError(response, 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          detailsOf(response).map(({ field }) => field),
          [`query.${'q'.repeat(57)}…`],
        );
        assert.ok(Buffer.byteLength(response.text) <= 4_096, 'the Error body is over 4 KiB');
      },
    ),
    check(
      'serves a request carrying headers named toString, constructor, __proto__ like any other',
      async ({ api }) => {
        for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
          assert.equal((await api.get(`${LIST}?limit=1`, { headers: { [name]: '1' } })).status, 200);
        }
      },
    ),
  ],
};
