import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authorizerFunction } from '#shared/operations/authorizer';
import { entryFile } from '#shared/operations/operation';
import { OPERATIONS } from '#shared/operations/routes';

/** Where each function's code is, and what the stack and the local gateway read from them. */

describe('the functions', () => {
  it('each have the entry file their name gives, the authorizer included', () => {
    const names = [authorizerFunction.name, ...OPERATIONS.map((operation) => operation.operationId)];

    expect(names.map(entryFile)).toEqual([
      'functions/authorizer.ts',
      'functions/list-pets.ts',
      'functions/create-pet.ts',
      'functions/get-pet.ts',
    ]);
    for (const name of names) expect(existsSync(entryFile(name))).toBe(true);
  });

  it('read the key from the Authorization header, for API Gateway as for the local gateway', () => {
    expect(authorizerFunction.identitySource).toBe('Authorization');
  });
});
