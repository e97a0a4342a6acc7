import { describe, expect, it } from 'vitest';
import { allowedMethods } from '#functions/operations';
import { type RouteMatch, requestTarget, route } from '#tools/local/routing';
import { staticFile } from '#tools/local/static-files';

/**
 * How the local gateway picks what answers a request, as API Gateway does for the stage `v1`:
 * segment by segment against the operations' resource paths, a preflight or a 405 for a known
 * resource and another method, nothing at all outside the resources.
 */

/** What a test compares: the operation by id rather than the whole descriptor. */
const summary = (match: RouteMatch) =>
  match.kind === 'operation'
    ? {
        kind: match.kind,
        operationId: match.operation.operationId,
        path: match.path,
        pathParameters: match.pathParameters === null ? null : { ...match.pathParameters },
      }
    : match;

describe('routing', () => {
  it('sends GET /v1/pets to listPets and POST /v1/pets to createPet, with no path parameters', () => {
    expect(summary(route('GET', '/v1/pets'))).toEqual({
      kind: 'operation',
      operationId: 'listPets',
      path: '/pets',
      pathParameters: null,
    });
    expect(summary(route('POST', '/v1/pets'))).toEqual({
      kind: 'operation',
      operationId: 'createPet',
      path: '/pets',
      pathParameters: null,
    });
  });

  it('sends GET /v1/pets/7 to getPet with petId "7"', () => {
    expect(summary(route('GET', '/v1/pets/7'))).toEqual({
      kind: 'operation',
      operationId: 'getPet',
      path: '/pets/7',
      pathParameters: { petId: '7' },
    });
  });

  it('decodes a percent-encoded path parameter, and keeps one that does not decode as it is', () => {
    const decoded = route('GET', '/v1/pets/%37%2F');
    const undecodable = route('GET', '/v1/pets/%E0%A4%A');

    expect(decoded.kind === 'operation' && { ...decoded.pathParameters }).toEqual({ petId: '7/' });
    expect(undecodable.kind === 'operation' && { ...undecodable.pathParameters }).toEqual({
      petId: '%E0%A4%A',
    });
  });

  it('ignores one trailing slash, as API Gateway does', () => {
    expect(summary(route('GET', '/v1/pets/'))).toMatchObject({ operationId: 'listPets', path: '/pets' });
    expect(summary(route('GET', '/v1/pets/3/'))).toMatchObject({
      operationId: 'getPet',
      path: '/pets/3',
      pathParameters: { petId: '3' },
    });
  });

  it.each([
    '/v1',
    '/v1/',
    '/v1pets',
    '/v2/pets',
    '/pets',
    '/v1/pet',
    '/v1/petsx',
    '/v1/pets//1',
    '/v1/pets/1/toys',
    '/v1//pets',
  ])('has no resource for %s', (path) => {
    expect(route('GET', path)).toEqual({ kind: 'no-resource' });
  });

  it('answers another method on a known resource with a 405 listing the methods it has', () => {
    expect(route('DELETE', '/v1/pets')).toEqual({
      kind: 'method-not-allowed',
      path: '/pets',
      allow: ['GET', 'POST'],
    });
    expect(route('POST', '/v1/pets/3')).toEqual({
      kind: 'method-not-allowed',
      path: '/pets/3',
      allow: allowedMethods('/pets/{petId}'),
    });
    expect(allowedMethods('/pets/{petId}')).toEqual(expect.arrayContaining(['GET', 'PATCH', 'DELETE']));
  });

  it('answers OPTIONS on a known resource with the preflight and its methods', () => {
    expect(route('OPTIONS', '/v1/pets')).toEqual({
      kind: 'preflight',
      path: '/pets',
      allow: ['GET', 'POST'],
    });
    expect(route('OPTIONS', '/v1/pets/3')).toEqual({
      kind: 'preflight',
      path: '/pets/3',
      allow: allowedMethods('/pets/{petId}'),
    });
  });

  it('matches methods exactly: a lower-case method is another method', () => {
    expect(route('get', '/v1/pets')).toMatchObject({ kind: 'method-not-allowed' });
  });
});

describe('static files', () => {
  const reference = { contentType: 'text/html', body: '<h1>Reference</h1>' };
  const document = { contentType: 'application/yaml', body: 'openapi: 3.1.0' };
  const asset = { contentType: 'text/css', body: 'h1 {}' };
  const routes = { '/docs': reference, '/openapi.yaml': document, '/docs/*': asset };

  it('serves a file by its exact path', () => {
    expect(staticFile(routes, '/docs')).toBe(reference);
    expect(staticFile(routes, '/openapi.yaml')).toBe(document);
  });

  it('serves everything below /docs from the /docs/* route', () => {
    expect(staticFile(routes, '/docs/style.css')).toBe(asset);
    expect(staticFile(routes, '/docs/fonts/a.woff2')).toBe(asset);
  });

  it('serves nothing else, nor what an object inherits', () => {
    expect(staticFile(routes, '/openapi.json')).toBeUndefined();
    expect(staticFile(routes, '/other/style.css')).toBeUndefined();
    expect(staticFile({ '/docs/*': asset }, '/docs')).toBeUndefined();
    expect(staticFile(routes, '__proto__')).toBeUndefined();
    expect(staticFile(routes, 'constructor')).toBeUndefined();
  });

  it('serves a /docs/* file only for a path that starts with /docs/', () => {
    expect(staticFile(routes, '/v1/docs/style.css')).toBeUndefined();
    expect(staticFile(routes, 'v1/docs/style.css')).toBeUndefined();
  });
});

describe('a request target', () => {
  it('keeps its path as sent: dot segments, encoded or not, and backslashes are never resolved', () => {
    for (const target of [
      '/v1/pets/5/%2e%2e/6',
      '/v1/pets/5/../6',
      '/v1/pets/%2E',
      '/v1/pets\\6',
      '/v1/./pets',
    ]) {
      expect(requestTarget(target).pathname).toBe(target);
    }
    expect(route('DELETE', requestTarget('/v1/pets/5/%2e%2e/6').pathname)).toEqual({ kind: 'no-resource' });
    expect(route('GET', requestTarget('/v1/pets/%2e').pathname)).toMatchObject({
      kind: 'operation',
      pathParameters: { petId: '.' },
    });
  });

  it('splits off the query, and reads the path of an absolute-form target after its authority', () => {
    const target = requestTarget('/v1/pets?limit=2&status=sold');
    const absolute = requestTarget('http://localhost:3000/v1/pets/%2e%2e?limit=1');

    expect([target.pathname, [...target.searchParams]]).toEqual([
      '/v1/pets',
      [
        ['limit', '2'],
        ['status', 'sold'],
      ],
    ]);
    expect([absolute.pathname, absolute.searchParams.get('limit')]).toEqual(['/v1/pets/%2e%2e', '1']);
    expect(requestTarget('http://localhost:3000').pathname).toBe('/');
  });

  it('reads an authority only at the start of the target, after a scheme that may hold digits', () => {
    const relative = requestTarget('/v1/pets?next=https://a.example/b');

    expect([relative.pathname, relative.searchParams.get('next')]).toEqual([
      '/v1/pets',
      'https://a.example/b',
    ]);
    expect(requestTarget('web+s3://bucket/v1/pets').pathname).toBe('/v1/pets');
  });
});
