import { describe, expect, it } from 'vitest';
import { CONTRACTS, SCOPE_RESOURCES } from '#functions/operations';
import { heldScopes, recordFor } from '#shared/auth/api-key';
import { ALL_SCOPES, checkScopeResources, inScopeOrder, ScopeResourcesError } from '#shared/auth/scopes';
import { ConfigError, ENV, readFunctionConfig } from '#shared/config';
import type { Operation } from '#shared/operations/operation';
import {
  AUTHORIZED_METHODS,
  methodResource,
  resourcePathsOf,
  scopedMethods,
  scopeOf,
  scopeResourcesOf,
} from '#shared/operations/routes';

/** Scopes: each operation's, each key's, and the methods the authorizer allows for each. */

describe("an operation's scope", () => {
  it('is read:pets for a safe method and write:pets for any other, unless its contract declares one', () => {
    expect(
      CONTRACTS.map((operation) => [operation.operationId, operation.method, scopeOf(operation)]),
    ).toEqual(
      CONTRACTS.map((operation) => [
        operation.operationId,
        operation.method,
        operation.method === 'GET' ? 'read:pets' : 'write:pets',
      ]),
    );
  });

  it('is the one its contract declares where that differs from its method', () => {
    expect(scopeOf({ method: 'POST', scope: 'read:pets' })).toBe('read:pets');
    expect(scopeOf({ method: 'GET', scope: 'write:pets' })).toBe('write:pets');
  });
});

describe('the methods behind the authorizer', () => {
  it("are every method API Gateway routes to each resource, an operation's with its scope and a 405's with its method's", () => {
    const methods = scopedMethods(CONTRACTS);

    expect(methods).toHaveLength(resourcePathsOf(CONTRACTS).length * AUTHORIZED_METHODS.length);
    for (const { method, path, scope } of methods) {
      const operation = CONTRACTS.find((candidate) => candidate.method === method && candidate.path === path);
      expect([method, path, scope]).toEqual([
        method,
        path,
        operation ? scopeOf(operation) : ['GET', 'HEAD'].includes(method) ? 'read:pets' : 'write:pets',
      ]);
    }
  });

  it('name a method as a policy names its ARN after the stage, a path parameter standing for any value', () => {
    expect(methodResource({ method: 'GET', path: '/pets' })).toBe('GET/pets');
    expect(methodResource({ method: 'DELETE', path: '/pets/{petId}' })).toBe('DELETE/pets/*');
    expect(methodResource({ method: 'PUT', path: '/a/{b}/c/{d}' })).toBe('PUT/a/*/c/*');
  });

  it('give each scope the methods of its operations, and follow a declared scope', () => {
    const operations: Pick<Operation, 'method' | 'path' | 'scope'>[] = [
      { method: 'GET', path: '/toys' },
      { method: 'POST', path: '/toys/{toyId}/search', scope: 'read:pets' },
    ];

    expect(scopeResourcesOf(operations)).toEqual({
      'read:pets': ['GET/toys', 'HEAD/toys', 'GET/toys/*/search', 'POST/toys/*/search', 'HEAD/toys/*/search'],
      'write:pets': [
        'POST/toys',
        'PUT/toys',
        'PATCH/toys',
        'DELETE/toys',
        'PUT/toys/*/search',
        'PATCH/toys/*/search',
        'DELETE/toys/*/search',
      ],
    });
  });

  it('share no method between two scopes, and leave none out', () => {
    const all = ALL_SCOPES.flatMap((scope) => SCOPE_RESOURCES[scope]);

    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(scopedMethods(CONTRACTS).length);
  });
});

describe("a key's scopes", () => {
  it('are every scope for a record made before scopes, and its own otherwise', () => {
    const record = recordFor('psk_scopes', 'ci');

    expect(heldScopes(record)).toEqual(ALL_SCOPES);
    expect(heldScopes({ ...record, scopes: ['write:pets'] })).toEqual(['write:pets']);
  });

  it('come in the order the scopes are declared, each once', () => {
    expect(inScopeOrder(['write:pets', 'read:pets', 'write:pets'])).toEqual(['read:pets', 'write:pets']);
  });
});

describe("the authorizer's scopes (PETSTORE_SCOPES)", () => {
  const env = (scopes: string) => ({ [ENV.scopes]: scopes });

  it('are read from the environment as the stack writes them', () => {
    expect(readFunctionConfig([], env(JSON.stringify(SCOPE_RESOURCES))).scopes).toEqual(SCOPE_RESOURCES);
    expect(readFunctionConfig([], {}).scopes).toBeUndefined();
  });

  it.each([
    ['not JSON', '{', /^PETSTORE_SCOPES must be the scopes' methods as JSON/],
    ['a list', '[]', /^PETSTORE_SCOPES: must be an object of method resources by scope/],
    [
      'an unknown scope',
      JSON.stringify({ ...SCOPE_RESOURCES, 'admin:pets': [] }),
      /"admin:pets" is not a scope: the scopes are read:pets, write:pets/,
    ],
    [
      'a scope left out',
      JSON.stringify({ 'read:pets': [] }),
      /write:pets must be a list of method resources/,
    ],
    [
      'a method resource that is not one',
      JSON.stringify({ ...SCOPE_RESOURCES, 'read:pets': ['/pets'] }),
      /read:pets must be a list of method resources such as "GET\/pets\/\*"/,
    ],
  ])('fail at cold start on %s', (_case, value, message) => {
    expect(() => readFunctionConfig([], env(value))).toThrow(ConfigError);
    expect(() => readFunctionConfig([], env(value))).toThrow(message);
  });

  it('are checked as a whole', () => {
    expect(checkScopeResources(SCOPE_RESOURCES)).toEqual(SCOPE_RESOURCES);
    expect(() => checkScopeResources(null)).toThrow(ScopeResourcesError);
  });
});
