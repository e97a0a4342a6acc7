import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { authorizer, authorizerFunction } from '#functions/authorizer';
import { OPERATIONS } from '#functions/operations';
import { publishPetEventsFunction } from '#functions/publish-pet-events';
import { lambdaEntry } from '#infra/lambda-entries';
import { PROJECT_ROOT } from '#infra/project-root';
import { kebabName, moduleOf } from '#shared/composition/function';

/** Where each function's code is, and the Lambda entry made from it for the stack and the bench. */

const FUNCTIONS = [authorizerFunction, ...OPERATIONS, publishPetEventsFunction];

describe('a function', () => {
  it.each(FUNCTIONS.map((fn) => [fn.name, fn] as const))(
    '%s lives in the module its name gives, under the name its Lambda entry imports',
    async (name, fn) => {
      const module: Record<string, unknown> = await import(join(PROJECT_ROOT, moduleOf(name)));

      expect(module[`${name}Function`]).toBe(fn);
    },
  );

  it.each(FUNCTIONS.map((fn) => [fn.name, fn] as const))(
    '%s gets a generated Lambda entry that imports its own module and nothing of another function',
    (name, fn) => {
      const source = readFileSync(join(PROJECT_ROOT, lambdaEntry(fn)), 'utf8');

      const imports = [...source.matchAll(/from '([^']+)'/g)].map(([, specifier]) => specifier);
      expect(imports).toEqual([`#functions/${kebabName(name)}`, '#shared/composition/environment']);
      expect(source).toContain(`export const handler = fromEnvironment(${name}Function);`);
    },
  );

  it('the authorizer reads the key from the Authorization header, for API Gateway as for the local gateway', () => {
    expect(authorizer.identitySource).toBe('Authorization');
  });
});
