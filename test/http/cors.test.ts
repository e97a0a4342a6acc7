import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedMethods } from '#functions/operations';
import type { ObservedExchange } from '#tools/contract/api-client';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * CORS on the local server, in its three settings (one origin as staging, any origin as npm
 * start, several origins): the gateway's preflight, 405 and refusals (mirroring API Gateway's
 * mocks and gateway responses) and the functions' own answers. What a browser meets on any stage
 * (a readable answer, error and 401; nothing for another origin) is in the contract suite
 * (tools/contract/cors.ts).
 */

const APP = 'http://localhost:5173';
const OTHER = 'https://evil.example';

let oneOrigin: LocalApi;
let anyOrigin: LocalApi;
let twoOrigins: LocalApi;
beforeAll(async () => {
  [oneOrigin, anyOrigin, twoOrigins] = await Promise.all([
    // As staging: one web client's origin.
    startLocalApi('cors-one', { corsOrigins: [APP] }),
    // As `npm start` by default.
    startLocalApi('cors-any', { corsOrigins: ['*'] }),
    startLocalApi('cors-two', { corsOrigins: [APP, 'https://app.example.com'] }),
  ]);
});
afterAll(() => Promise.all([oneOrigin.close(), anyOrigin.close(), twoOrigins.close()]));

const from = (origin: string) => ({ Origin: origin });

const preflight = (api: LocalApi, path: string, origin: string) =>
  api.client.request(path, {
    method: 'OPTIONS',
    anonymous: true,
    headers: {
      ...from(origin),
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
    },
  });

/** Every CORS response header of an answer, by name in lower case. */
const corsOf = (response: ObservedExchange) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

describe.concurrent('a preflight (OPTIONS)', () => {
  it('is answered without a key for an allowed origin: 204 with the methods, headers and max age', async () => {
    const response = await preflight(oneOrigin, '/pets', APP);

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(corsOf(response)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match',
      'access-control-max-age': '7200',
    });
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('names the methods of the resource asked about', async () => {
    const response = await preflight(oneOrigin, '/pets/7', APP);

    expect(response.headers.get('access-control-allow-methods')).toBe(
      allowedMethods('/pets/{petId}').join(', '),
    );
  });

  it('grants nothing to another origin: 204 without a CORS header', async () => {
    const response = await preflight(oneOrigin, '/pets', OTHER);

    expect(response.status).toBe(204);
    expect(corsOf(response)).toEqual({});
  });

  it('answers 404 on a path the API does not have, as API Gateway does', async () => {
    const response = await preflight(oneOrigin, '/owners', APP);

    expect(response.status).toBe(404);
  });
});

describe.concurrent('answers to an allowed origin', () => {
  it('include the gateway’s 405', async () => {
    const response = await oneOrigin.client.request('/pets', { method: 'DELETE', headers: from(APP) });

    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('include a replayed create, which never reaches the handler', async () => {
    const headers = { ...from(APP), 'Idempotency-Key': randomUUID() };
    await oneOrigin.client.post('/pets', { name: 'Cross', categoryId: 1 }, { headers });

    const replay = await oneOrigin.client.post('/pets', { name: 'Cross', categoryId: 1 }, { headers });

    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('access-control-allow-origin')).toBe(APP);
  });
});

describe.concurrent('answers to another origin, or to no origin', () => {
  it('carry no CORS header from a function, only Vary: Origin', async () => {
    const foreign = await oneOrigin.client.get('/pets', { headers: from(OTHER) });
    const none = await oneOrigin.client.get('/pets');

    expect(corsOf(foreign)).toEqual({});
    expect(foreign.headers.get('vary')).toBe('Origin');
    expect(corsOf(none)).toEqual({});
  });

  it('carry no CORS header from the 405 mock', async () => {
    const response = await oneOrigin.client.request('/pets', { method: 'DELETE', headers: from(OTHER) });

    expect(corsOf(response)).toEqual({});
  });

  it('name only the allowed origin on a gateway response, which cannot look at the request: the other page still cannot read it', async () => {
    const response = await oneOrigin.client.get('/pets', { anonymous: true, headers: from(OTHER) });

    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
  });
});

describe('with any origin allowed (npm start by default)', () => {
  it('gives every origin its own origin back, on a preflight, a function answer and a 401', async () => {
    const origin = 'http://127.0.0.1:8080';

    const answers = await Promise.all([
      preflight(anyOrigin, '/pets', origin),
      anyOrigin.client.get('/pets', { headers: from(origin) }),
      anyOrigin.client.get('/pets', { anonymous: true, headers: from(origin) }),
    ]);

    expect(answers.map((response) => response.status)).toEqual([204, 200, 401]);
    for (const response of answers) {
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('vary')).toBe('Origin');
    }
  });
});

describe('with several origins allowed', () => {
  it('answers each from its functions and mocks, but sends no CORS header on a gateway response', async () => {
    const [answer, preflighted, refused] = await Promise.all([
      twoOrigins.client.get('/pets', { headers: from('https://app.example.com') }),
      preflight(twoOrigins, '/pets', APP),
      twoOrigins.client.get('/pets', { anonymous: true, headers: from(APP) }),
    ]);

    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflighted.headers.get('access-control-allow-origin')).toBe(APP);
    expect(refused.status).toBe(401);
    expect(corsOf(refused)).toEqual({});
  });
});
