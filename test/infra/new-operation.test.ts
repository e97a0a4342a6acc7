import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowedMethods, OPERATIONS } from '#functions/operations';
import { PROJECT_ROOT } from '#infra/project-root';
import { petsTable } from '#shared/adapters/dynamodb/pets-table';
import { moduleOf } from '#shared/composition/function';
import { route } from '#tools/local/routing';
import { buildDocument } from '#tools/openapi/build-document';
import { synthStages } from '../support/pet-store-app';
import {
  actionsOf,
  functionId,
  methodPath,
  resourcesOfType,
  roleOfFunction,
  statementsOfRole,
} from '../support/template-queries';

/**
 * A synth of both stacks: 0.7 s on a quiet machine, over 5 s (the default) with a busy loop and
 * the rest of the run beside it; the infra project's limit.
 */
const SYNTH_BUDGET_MS = 60_000;

/**
 * The README's recipe for a new operation, proved by the two that were added by it: updatePet
 * (`PATCH /pets/{petId}`) and deletePet (`DELETE /pets/{petId}`) are each one module of
 * functions/ and one line of OPERATIONS. Taking their lines out of the list takes them out of the
 * local gateway, the stack and the document; nothing else names them.
 */
const ADDED = ['updatePet', 'deletePet'];
const contracts = OPERATIONS.map((root) => root.operation);
const before = contracts.filter((operation) => !ADDED.includes(operation.operationId));
const added = OPERATIONS.filter((root) => ADDED.includes(root.name));

describe('the two operations added as the recipe says (PATCH and DELETE /pets/{petId})', () => {
  it('are routed by the local gateway from the list, and the methods of their path follow it', () => {
    expect(route('PATCH', '/v1/pets/7')).toMatchObject({
      kind: 'operation',
      operation: { operationId: 'updatePet' },
      pathParameters: { petId: '7' },
    });
    expect(route('DELETE', '/v1/pets/7')).toMatchObject({
      kind: 'operation',
      operation: { operationId: 'deletePet' },
    });
    expect(route('POST', '/v1/pets/7')).toMatchObject({
      kind: 'method-not-allowed',
      path: '/pets/7',
      allow: expect.arrayContaining(['GET', 'PATCH', 'DELETE']),
    });
    const without = route('PATCH', '/v1/pets/7', before);
    expect(without).toMatchObject({ kind: 'method-not-allowed', allow: expect.arrayContaining(['GET']) });
    expect(without.kind === 'method-not-allowed' && without.allow).not.toContain('DELETE');
  });

  it('are documented from the list: a 200 with ETag, a 204 without content, 404 and 412, and their 405', () => {
    const path = buildDocument().paths?.['/pets/{petId}'];
    const responses = (method: 'patch' | 'delete'): Record<string, unknown> =>
      path?.[method]?.responses ?? {};

    expect([path?.patch?.operationId, path?.delete?.operationId]).toEqual(['updatePet', 'deletePet']);
    expect(Object.keys(responses('patch'))).toEqual(
      expect.arrayContaining(['200', '400', '404', '405', '412', '415']),
    );
    expect(JSON.stringify(responses('patch')['200'])).toContain('ETag');
    expect(responses('delete')['204']).not.toHaveProperty('content');
    expect(Object.keys(responses('delete'))).toEqual(
      expect.arrayContaining(['204', '400', '404', '405', '412']),
    );
    expect(JSON.stringify(responses('delete')['405'])).toContain(allowedMethods('/pets/{petId}').join(', '));
    expect(buildDocument(before).paths?.['/pets/{petId}']).not.toHaveProperty('patch');
    expect(buildDocument(before).paths?.['/pets/{petId}']).not.toHaveProperty('delete');
  });

  it(
    'get methods behind the authorizer with a key required, each a function that may only update or only delete pets',
    () => {
      const template = synthStages().templates.production;
      const methods = resourcesOfType(template, 'AWS::ApiGateway::Method');

      for (const [method, operationId, action] of [
        ['PATCH', 'updatePet', 'dynamodb:UpdateItem'],
        ['DELETE', 'deletePet', 'dynamodb:DeleteItem'],
      ] as const) {
        const [, resource] =
          methods.find(
            ([, candidate]) =>
              candidate.Properties.HttpMethod === method &&
              methodPath(template, candidate) === '/pets/{petId}',
          ) ?? [];
        expect(resource?.Properties).toMatchObject({
          OperationName: operationId,
          AuthorizationType: 'CUSTOM',
          ApiKeyRequired: true,
        });
        const fn = functionId(template, `${method} /pets/{petId} (${operationId})`);
        const actions = actionsOf(statementsOfRole(template, roleOfFunction(template, fn)));
        expect(actions.filter((name) => name.startsWith('dynamodb:'))).toEqual([action]);
      }
      const anyMock = methods.find(
        ([, method]) =>
          method.Properties.HttpMethod === 'ANY' && methodPath(template, method) === '/pets/{petId}',
      );
      expect(JSON.stringify(anyMock?.[1].Properties.Integration)).toContain(
        `'${allowedMethods('/pets/{petId}').join(', ')}'`,
      );
    },
    SYNTH_BUDGET_MS,
  );

  it('need nothing beyond their module but the list, and the adapter method they use', () => {
    for (const fn of added) {
      const module = moduleOf(fn.name);
      expect(Object.keys(fn.operation)).not.toContain('uses');
      const imports = [...readFileSync(join(PROJECT_ROOT, module), 'utf8').matchAll(/from '(#[^']+)'/g)].map(
        ([, specifier]) => specifier ?? '',
      );
      // Nothing of functions/: the rest is shared/ (domain, adapters, HTTP).
      expect(
        imports.filter((specifier) => !specifier.startsWith('#shared/')),
        module,
      ).toEqual([]);
    }
    expect(added.map((fn) => [moduleOf(fn.name), fn.data])).toEqual([
      ['functions/update-pet.ts', petsTable.allow('update').data],
      ['functions/delete-pet.ts', petsTable.allow('delete').data],
    ]);
  });
});
