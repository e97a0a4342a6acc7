import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedMethods } from '#functions/operations';
import { HTTP_METHODS } from '#shared/operations/operation';
import { ApiClient } from '#tools/contract/api-client';
import { type Exchange, loadContract } from '#tools/contract/conformance';
import { type LocalApi, startLocalApi } from '../support/local-api';

/** A method a pet's path does not have, whatever the list holds. */
const ABSENT = (() => {
  const method = HTTP_METHODS.find((candidate) => !allowedMethods('/pets/{petId}').includes(candidate));
  if (!method) throw new Error("A pet's path has every method");
  return method;
})();

/** The documented deprecation headers of getPet (docs/api.md), written out. */
const GET_PET_DEPRECATION_HEADERS = {
  Deprecation: '@1795219200',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
};

/**
 * The conformance check (tools/contract/conformance.ts), which the http project runs on every
 * response an ApiClient receives: it must catch responses that break docs/openapi.yaml, pass
 * the real service's, and fail the test that made the request.
 */

const contract = loadContract();

const pet = { id: 7, name: 'Rex', categoryId: 3, status: 'available' };

/** What every answer to an accepted key carries: its request's id and the caller's plan. */
const CALLER_HEADERS = {
  'Request-Id': 'ZjyqcFWuvHcFSOA=',
  'x-amz-apigw-id': 'ZjyqcFWuvHcFSOA=',
  'RateLimit-Policy': '"standard";q=10000;w=86400, "standard-rate";q=20;w=2',
};
const errorOf = (code: string, status: number) => ({ code, status, message: 'something' });

const exchange = (
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Exchange => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    method,
    path,
    status,
    headers: new Headers({ 'Content-Type': 'application/json', ...CALLER_HEADERS, ...headers }),
    text,
    json,
  };
};

describe('the conformance check', () => {
  it('passes responses that say what the document says', () => {
    const conforming = [
      exchange('GET', '/pets?limit=1', 200, [pet]),
      exchange('GET', '/pets/', 200, []),
      exchange('POST', '/pets', 201, pet, { Location: '/v1/pets/7', ETag: '"1"' }),
      exchange('GET', '/pets/7', 200, pet, { ...GET_PET_DEPRECATION_HEADERS, ETag: '"1"' }),
      exchange('PATCH', '/pets/7', 200, pet, { ETag: '"2"' }),
      exchange('DELETE', '/pets/7', 204, ''),
      exchange('DELETE', '/pets/7', 412, errorOf('PRECONDITION_FAILED', 412)),
      exchange('GET', '/pets/8', 404, errorOf('NOT_FOUND', 404), GET_PET_DEPRECATION_HEADERS),
      exchange('POST', '/pets', 400, errorOf('INVALID_JSON', 400)),
      exchange('GET', '/pets', 503, errorOf('SERVICE_UNAVAILABLE', 503), { 'Retry-After': '1' }),
      exchange('DELETE', '/pets', 405, errorOf('METHOD_NOT_ALLOWED', 405), { Allow: 'GET, POST' }),
      exchange('DELETE', '/pets', 401, errorOf('UNAUTHORIZED', 401)),
      exchange('GET', '/nope', 404, errorOf('NOT_FOUND', 404)),
      exchange('GET', '/pets?limit=1', 200, [pet], { Link: '</v1/pets?limit=1&cursor=AQ>; rel="next"' }),
      exchange('POST', '/pets', 201, pet, {
        Location: '/v1/pets/7',
        ETag: '"1"',
        'Idempotent-Replayed': 'true',
      }),
      exchange('POST', '/pets', 409, errorOf('IDEMPOTENCY_KEY_IN_USE', 409), { 'Retry-After': '1' }),
      exchange('GET', '/pets', 429, errorOf('TOO_MANY_REQUESTS', 429), { 'Retry-After': '1' }),
      exchange('GET', '/pets', 429, errorOf('QUOTA_EXCEEDED', 429), { 'Retry-After': '3600' }),
      exchange('GET', '/pets', 403, errorOf('FORBIDDEN', 403)),
      {
        ...exchange('OPTIONS', '/pets/7', 204, ''),
        headers: new Headers({ 'X-Content-Type-Options': 'nosniff' }),
      },
    ];
    for (const candidate of conforming) {
      expect({ path: candidate.path, problems: contract.violations(candidate) }).toEqual({
        path: candidate.path,
        problems: [],
      });
    }
  });

  it.each([
    [
      'a body of the wrong shape',
      exchange('GET', '/pets', 200, [{ ...pet, id: '7' }]),
      /body\/0\/id must be integer/,
    ],
    [
      'a field the schema does not have',
      exchange('GET', '/pets/7', 200, { ...pet, owner: 'me' }, GET_PET_DEPRECATION_HEADERS),
      /must NOT have additional properties \(owner\)/,
    ],
    [
      'a missing required field',
      exchange(
        'POST',
        '/pets',
        201,
        { name: 'Rex', categoryId: 3, status: 'sold' },
        { Location: '/v1/pets/1' },
      ),
      /must have required property 'id'/,
    ],
    [
      'a status the operation does not declare',
      exchange('GET', '/pets', 418, errorOf('NOT_FOUND', 418)),
      /status 418 is not declared for GET \/pets \(listPets\)/,
    ],
    ['a missing required header', exchange('POST', '/pets', 201, pet), /required header Location is missing/],
    [
      'a wrong value of a declared header',
      exchange('GET', '/pets/7', 200, pet, {
        ...GET_PET_DEPRECATION_HEADERS,
        Sunset: 'Fri, 01 Jan 2100 00:00:00 GMT',
      }),
      /header Sunset: .* must be equal to constant/,
    ],
    [
      'an error code of another status',
      exchange('GET', '/pets/8', 404, errorOf('VALIDATION_FAILED', 404), GET_PET_DEPRECATION_HEADERS),
      /body\/code must be equal to one of the allowed values/,
    ],
    [
      'an Error whose status is not the HTTP status',
      exchange('GET', '/pets/8', 404, errorOf('NOT_FOUND', 400), GET_PET_DEPRECATION_HEADERS),
      /body\/status must be equal to constant/,
    ],
    [
      'another content type',
      { ...exchange('GET', '/pets', 200, []), headers: new Headers({ 'Content-Type': 'text/html' }) },
      /Content-Type text\/html is not among the declared application\/json/,
    ],
    ['a body that is not JSON', exchange('GET', '/pets', 200, '<html></html>'), /the body is not JSON/],
    [
      'an unknown path answered with success',
      exchange('GET', '/pets/7/owner', 200, pet),
      /status 200 is not declared for a path the document does not have/,
    ],
    [
      'another method answered with success',
      exchange(ABSENT, '/pets/7', 200, pet),
      new RegExp(
        `status 200 is not declared for ${ABSENT} /pets/\\{petId\\}, a method the path does not have`,
      ),
    ],
    [
      'a Link on a listing that is not a next page of it',
      exchange('GET', '/pets', 200, [pet], { Link: '<https://elsewhere.example/>; rel="next"' }),
      /header Link: .* must match pattern/,
    ],
    [
      'a 409 without Retry-After',
      exchange('POST', '/pets', 409, errorOf('IDEMPOTENCY_KEY_IN_USE', 409)),
      /required header Retry-After is missing/,
    ],
    [
      'a CORS preflight with a body',
      {
        ...exchange('OPTIONS', '/pets', 204, '{}'),
        headers: new Headers({ 'X-Content-Type-Options': 'nosniff' }),
      },
      /a preflight answered with a body/,
    ],
    [
      'a CORS preflight answered 200',
      {
        ...exchange('OPTIONS', '/pets', 200, ''),
        headers: new Headers({ 'X-Content-Type-Options': 'nosniff' }),
      },
      /a preflight answered 200, not 204/,
    ],
    [
      'an answer without Request-Id',
      { ...exchange('GET', '/pets', 200, []), headers: new Headers({ 'Content-Type': 'application/json' }) },
      /required header Request-Id is missing/,
    ],
    [
      "a function's answer without the caller's RateLimit-Policy",
      {
        ...exchange('GET', '/pets', 200, []),
        headers: new Headers({ 'Content-Type': 'application/json', 'Request-Id': 'r-1' }),
      },
      /required header RateLimit-Policy is missing/,
    ],
    [
      'a RateLimit-Policy of another form than the draft’s',
      exchange('GET', '/pets', 200, [], { 'RateLimit-Policy': '100;w=60' }),
      /header RateLimit-Policy: .* must match pattern/,
    ],
    [
      'a 429 with a code that says neither rate nor quota',
      exchange('GET', '/pets', 429, errorOf('SERVICE_UNAVAILABLE', 429), { 'Retry-After': '1' }),
      /body\/code must be equal to one of the allowed values/,
    ],
    [
      'a 405 without Allow',
      exchange('PATCH', '/pets', 405, errorOf('METHOD_NOT_ALLOWED', 405)),
      /required header Allow is missing/,
    ],
  ])('catches %s', (_case, candidate, message) => {
    expect(() => contract.assertConforms(candidate)).toThrow(message);
  });
});

describe('the real service', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startLocalApi('conformance');
  });
  afterAll(() => api.close());

  it('conforms in every operation, success and failure', async () => {
    const { client } = api;
    const created = await client.post('/pets', { name: 'Rex', categoryId: 3 });
    const id = (created.json as { id: number }).id;
    const responses = [
      created,
      await client.post('/pets', { name: 'Tom', categoryId: 7, status: 'pending' }),
      await client.get('/pets'),
      await client.get('/pets?limit=1&status=available'),
      await client.get(`/pets/${id}`),
      await client.get('/pets/987654321'),
      await client.get('/pets/abc'),
      await client.get('/pets?limit=0'),
      await client.get('/pets', { anonymous: true }),
      await client.post('/pets', { name: '', categoryId: 0, staus: 'sold' }),
      await client.post('/pets', '{"name":', { headers: { 'Content-Type': 'application/json' } }),
      await client.request('/pets', { method: 'POST', headers: { 'Content-Type': 'application/json' } }),
      await client.post('/pets', '{"name":"Rex","categoryId":1}', {
        headers: { 'Content-Type': 'text/plain' },
      }),
      await client.post('/pets', { name: 'x'.repeat(17 * 1024), categoryId: 1 }),
      await client.request('/pets', { method: 'DELETE' }),
      await client.request(`/pets/${id}`, { method: ABSENT, body: { name: 'Rex' } }),
      await client.get('/unknown'),
    ];

    expect(responses.map((response) => response.status)).toEqual([
      201, 201, 200, 200, 200, 404, 400, 400, 401, 400, 400, 400, 415, 413, 405, 405, 404,
    ]);
    // Each was checked by the client as it arrived; checked again here, explicitly.
    for (const response of responses) expect(contract.violations(response)).toEqual([]);
  });
});

describe('a client checked against the document', () => {
  let server: Server;
  let client: ApiClient;
  beforeAll(async () => {
    // A service that answers GET /v1/pets with something the document does not allow.
    server = createServer((_request, response) => {
      response
        .writeHead(200, { 'Content-Type': 'application/json', ...CALLER_HEADERS })
        .end(JSON.stringify([{ ...pet, id: '7' }]));
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    client = ApiClient.checkedAgainst(
      contract,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      'any-key',
    );
  });
  afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

  it('fails the request, and so the test, when a response breaks the document', async () => {
    await expect(client.get('/pets')).rejects.toThrow(
      /GET \/pets answered 200, which does not conform to docs\/openapi\.yaml:\n {2}- body\/0\/id must be integer/,
    );
  });
});
