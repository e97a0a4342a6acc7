import { expect } from 'vitest';
import type { ObservedExchange } from './api-client';
import { type ContractArea, type ContractTarget, check } from './target';

/** CORS as a browser on another origin meets it. */

const EXPOSED = 'Link, Location, Deprecation, Sunset, Retry-After, Idempotent-Replayed';
const FOREIGN = 'https://not-allowed.example';

const corsOf = (response: ObservedExchange) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

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

        expect(response.status).toBe(204);
        expect(response.text).toBe('');
      }
    }),

    check(
      'grants an allowed origin the methods, the request headers and the headers a script may read',
      async (target) => {
        if (!target.allowedOrigin) return;
        const origin = target.allowedOrigin;

        const response = await preflight(target, '/pets', origin);
        const answer = await target.api.get('/pets?limit=1', { headers: { Origin: origin } });

        expect(corsOf(response)).toMatchObject({
          'access-control-allow-origin': origin,
          'access-control-allow-methods': expect.stringContaining('POST'),
          'access-control-allow-headers': expect.stringMatching(
            /Authorization.*Content-Type.*Idempotency-Key/i,
          ),
        });
        expect(corsOf(answer)).toEqual({
          'access-control-allow-origin': origin,
          'access-control-expose-headers': EXPOSED,
        });
        expect(answer.headers.get('vary')).toBe('Origin');
      },
    ),

    check('lets an allowed origin read errors, a refused key included', async (target) => {
      if (!target.allowedOrigin) return;
      const headers = { Origin: target.allowedOrigin };

      const invalid = await target.api.get('/pets?limit=0', { headers });
      const refused = await target.api.get('/pets', { anonymous: true, headers });

      expect(invalid.headers.get('access-control-allow-origin')).toBe(target.allowedOrigin);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(target.allowedOrigin);
    }),

    check(
      'grants an origin it does not list nothing; allowing any origin, that origin and nothing wider',
      async ({ api, origins }) => {
        const response = await api.get('/pets?limit=1', { headers: { Origin: FOREIGN } });

        expect(response.status).toBe(200);
        const granted = { 'access-control-allow-origin': FOREIGN, 'access-control-expose-headers': EXPOSED };
        if (origins === 'listed') expect(corsOf(response)).toEqual({});
        else if (origins === 'any') expect(corsOf(response)).toEqual(granted);
        else expect([{}, granted]).toContainEqual(corsOf(response));
      },
    ),
  ],
};
