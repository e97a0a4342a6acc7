import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authorizer } from '#functions/authorizer/contract';
import { authorizerRoot } from '#functions/authorizer/root';
import { OPERATIONS } from '#functions/operations';

/** Where each function's code is, and what the stack and the local gateway read from them. */

describe('the functions', () => {
  it('each have their Lambda entry in the folder their name gives, the authorizer included', () => {
    const entries = [authorizerRoot, ...OPERATIONS].map((root) => root.entry);

    expect(entries).toEqual([
      'functions/authorizer/lambda.ts',
      'functions/list-pets/lambda.ts',
      'functions/create-pet/lambda.ts',
      'functions/get-pet/lambda.ts',
      'functions/update-pet/lambda.ts',
      'functions/delete-pet/lambda.ts',
    ]);
    for (const entry of entries) expect(existsSync(entry)).toBe(true);
  });

  it('read the key from the Authorization header, for API Gateway as for the local gateway', () => {
    expect(authorizer.identitySource).toBe('Authorization');
  });
});
