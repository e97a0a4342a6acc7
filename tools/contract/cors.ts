import assert from 'node:assert/strict';
import { listPets } from '#functions/list-pets';
import { CONTRACTS } from '#functions/operations';
import { corsAllowedHeaders, corsExposedHeaders } from '#shared/http/gateway-behaviour';
import type { ObservedExchange } from './api-client';
import { type ContractArea, check } from './check';

/** CORS as a browser on another origin meets it, beyond each path's preflight (operations.ts). */

const LIST = listPets.path;
const FOREIGN = 'https://not-allowed.example';

const corsOf = (response: ObservedExchange) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

export const CORS_AREA: ContractArea = {
  area: 'CORS',
  checks: [
    check(
      'grants an allowed origin the request headers the operations read, and the headers an answer may carry',
      async ({ api, allowedOrigin: origin = '' }) => {
        const preflight = await api.request(LIST, {
          method: 'OPTIONS',
          anonymous: true,
          headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' },
        });
        const answer = await api.get(`${LIST}?limit=1`, { headers: { Origin: origin } });

        assert.equal(
          preflight.headers.get('access-control-allow-headers'),
          corsAllowedHeaders(CONTRACTS).join(', '),
        );
        assert.deepEqual(corsOf(answer), {
          'access-control-allow-origin': origin,
          'access-control-expose-headers': corsExposedHeaders([listPets]).join(', '),
        });
        assert.equal(answer.headers.get('vary'), 'Origin');
      },
      { needs: 'allowedOrigin' },
    ),
    check(
      'lets an allowed origin read errors, a refused key included',
      async ({ api, allowedOrigin: origin = '' }) => {
        const invalid = await api.get(`${LIST}?limit=0`, { headers: { Origin: origin } });
        const refused = await api.get(LIST, { anonymous: true, headers: { Origin: origin } });

        assert.deepEqual(
          [
            invalid.headers.get('access-control-allow-origin'),
            refused.status,
            refused.headers.get('access-control-allow-origin'),
          ],
          [origin, 401, origin],
        );
      },
      { needs: 'allowedOrigin' },
    ),
    check(
      'grants an origin it does not list nothing; allowing any origin, that origin and nothing wider',
      async ({ api, origins }) => {
        const response = await api.get(`${LIST}?limit=1`, { headers: { Origin: FOREIGN } });

        assert.equal(response.status, 200);
        const granted = {
          'access-control-allow-origin': FOREIGN,
          'access-control-expose-headers': corsExposedHeaders([listPets]).join(', '),
        };
        if (origins === 'listed') assert.deepEqual(corsOf(response), {});
        else if (origins === 'any') assert.deepEqual(corsOf(response), granted);
        else if (Object.keys(corsOf(response)).length > 0) assert.deepEqual(corsOf(response), granted);
      },
    ),
  ],
};
