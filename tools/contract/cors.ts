import assert from 'node:assert/strict';
import type { ObservedExchange } from './api-client';
import { assertContains, assertIncludes } from './assertions';
import { type ContractArea, check, notApplicable } from './check';
import type { ContractTarget } from './target';

/** CORS as a browser on another origin meets it. */

const EXPOSED =
  'Link, Location, Deprecation, Sunset, Retry-After, Idempotent-Replayed, Request-Id, RateLimit-Policy, x-amz-apigw-id';
const FOREIGN = 'https://not-allowed.example';

const corsOf = (response: ObservedExchange) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

/** Why the checks of what an allowed origin gets are skipped on a target given no origin. */
export const NO_ORIGIN_REASON =
  'no origin the target allows was given (--origin or SMOKE_ORIGIN); production allows none';

/**
 * The origin the target allows. The checks of what an allowed origin gets do not apply to a
 * target that allows none (production) or was given none: they are skipped, saying so.
 */
const allowedOriginOf = (target: ContractTarget): string =>
  target.allowedOrigin ?? notApplicable(NO_ORIGIN_REASON);

const preflight = ({ api }: ContractTarget, path: string, origin: string) =>
  api.request(path, {
    method: 'OPTIONS',
    anonymous: true,
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
    },
  });

export const CORS_AREA: ContractArea = {
  area: 'CORS',
  checks: [
    check('answers a preflight on either resource without a key, with no body', async (target) => {
      for (const path of ['/pets', '/pets/1']) {
        const response = await preflight(target, path, target.allowedOrigin ?? FOREIGN);

        assert.equal(response.status, 204);
        assert.equal(response.text, '');
      }
    }),

    check(
      'grants an allowed origin the methods, the request headers and the headers a script may read',
      async (target) => {
        const origin = allowedOriginOf(target);

        const response = await preflight(target, '/pets', origin);
        const answer = await target.api.get('/pets?limit=1', { headers: { Origin: origin } });

        const granted = corsOf(response);
        assert.equal(granted['access-control-allow-origin'], origin);
        assertContains(granted['access-control-allow-methods'], 'POST');
        assert.match(
          granted['access-control-allow-headers'] ?? '',
          /Authorization.*Content-Type.*Idempotency-Key/i,
        );
        assert.deepEqual(corsOf(answer), {
          'access-control-allow-origin': origin,
          'access-control-expose-headers': EXPOSED,
        });
        assert.equal(answer.headers.get('vary'), 'Origin');
      },
    ),

    check('lets an allowed origin read errors, a refused key included', async (target) => {
      const origin = allowedOriginOf(target);
      const headers = { Origin: origin };

      const invalid = await target.api.get('/pets?limit=0', { headers });
      const refused = await target.api.get('/pets', { anonymous: true, headers });

      assert.equal(invalid.headers.get('access-control-allow-origin'), origin);
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('access-control-allow-origin'), origin);
    }),

    check(
      'grants an origin it does not list nothing; allowing any origin, that origin and nothing wider',
      async ({ api, origins }) => {
        const response = await api.get('/pets?limit=1', { headers: { Origin: FOREIGN } });

        assert.equal(response.status, 200);
        const granted = { 'access-control-allow-origin': FOREIGN, 'access-control-expose-headers': EXPOSED };
        if (origins === 'listed') assert.deepEqual(corsOf(response), {});
        else if (origins === 'any') assert.deepEqual(corsOf(response), granted);
        else assertIncludes<Record<string, string>>([{}, granted], corsOf(response));
      },
    ),
  ],
};
