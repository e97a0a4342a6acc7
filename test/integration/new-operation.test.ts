import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizerRoot } from '#functions/authorizer/root';
import { buildOperationHandlers, OPERATIONS } from '#functions/operations';
import { generateApiKey } from '#shared/auth/api-key';
import type { FunctionConfig } from '#shared/config';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import { route } from '#tools/local/routing';
import { buildDocument } from '#tools/openapi/build-document';
import { deletePet } from '../support/delete-pet/contract';
import { deletePetRoot } from '../support/delete-pet/root';
import { buildTestApp } from '../support/pet-store-app';
import { TEST_PLANS } from '../support/plans';

/**
 * A synth of both stacks: 0.7 s on a quiet machine, over 5 s (the default) with a busy loop and
 * the rest of the run beside it; the infra project's limit.
 */
const SYNTH_BUDGET_MS = 60_000;

import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';
import {
  actionsOf,
  functionId,
  methodPath,
  resourcesOfType,
  roleOfFunction,
  statementsOfRole,
} from '../support/template-queries';

/**
 * The README's recipe for a new operation, proved: a test-only `DELETE /pets/{petId}` (204, no
 * body) written as one folder (test/support/delete-pet/) and added to the list is routed by the
 * local gateway, served by the stack with exactly its grants, and documented, with no other file
 * changed.
 */
const operations = [...OPERATIONS, deletePetRoot];
const contracts = operations.map((root) => root.operation);

describe('a fifth operation added as the recipe says (DELETE /pets/{petId}, 204)', () => {
  it('is routed by the local gateway, and the methods of its path include it', () => {
    expect(route('DELETE', '/v1/pets/7', contracts)).toMatchObject({
      kind: 'operation',
      operation: { operationId: 'deletePet' },
      pathParameters: { petId: '7' },
    });
    expect(route('PUT', '/v1/pets/7', contracts)).toEqual({
      kind: 'method-not-allowed',
      path: '/pets/7',
      allow: ['GET', 'DELETE'],
    });
    expect(route('DELETE', '/v1/pets/7')).toMatchObject({ kind: 'method-not-allowed', allow: ['GET'] });
  });

  it('is documented with a 204 without content, its own 404, and GET, DELETE in the Allow of its 405', () => {
    const operation = buildDocument(contracts).paths?.['/pets/{petId}']?.delete;
    const responses: Record<string, unknown> = operation?.responses ?? {};

    expect(operation?.operationId).toBe('deletePet');
    // No content, but the headers every answer of a function carries.
    expect(responses['204']).toEqual({
      description: 'The animal was removed.',
      headers: {
        'Request-Id': { $ref: '#/components/headers/Request-Id' },
        'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
      },
    });
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['204', '400', '404', '405']));
    expect(JSON.stringify(responses['405'])).toContain('GET, DELETE');
    // The document of the real operations is untouched by it.
    expect(buildDocument().paths?.['/pets/{petId}']).not.toHaveProperty('delete');
  });

  it(
    'gets a method, a function with exactly its DeleteItem grant, and GET, DELETE in its 405 mock',
    () => {
      const { stacks } = buildTestApp({ operations });
      const template = Template.fromStack(stacks.staging);
      const fn = functionId(template, 'DELETE /pets/{petId} (deletePet)');

      const methods = resourcesOfType(template, 'AWS::ApiGateway::Method').map(([, method]) => ({
        method: method.Properties.HttpMethod,
        path: methodPath(template, method),
        operationName: method.Properties.OperationName,
      }));
      expect(methods).toContainEqual({ method: 'DELETE', path: '/pets/{petId}', operationName: 'deletePet' });
      expect(actionsOf(statementsOfRole(template, roleOfFunction(template, fn)))).toContain(
        'dynamodb:DeleteItem',
      );
      expect(
        actionsOf(statementsOfRole(template, roleOfFunction(template, fn))).filter((action) =>
          action.startsWith('dynamodb:'),
        ),
      ).toEqual(['dynamodb:DeleteItem']);
      const anyMock = resourcesOfType(template, 'AWS::ApiGateway::Method').find(
        ([, method]) =>
          method.Properties.HttpMethod === 'ANY' && methodPath(template, method) === '/pets/{petId}',
      );
      expect(JSON.stringify(anyMock?.[1].Properties.Integration)).toContain("'GET, DELETE'");
    },
    SYNTH_BUDGET_MS,
  );

  describe('served by the local gateway', () => {
    let tables: TestTables;
    let gateway: LocalGateway;
    let key: string;

    beforeAll(async () => {
      tables = await createTestTables('new-operation');
      const generated = generateApiKey('new-operation tests');
      key = generated.key;
      await apiKeysOf(tables).put(generated.record);
      const config: FunctionConfig = {
        tables: tables.names,
        dynamoDb: { endpoint: tables.endpoint },
        metrics: false,
        logLevel: 'SILENT',
        plans: TEST_PLANS,
      };
      gateway = await startLocalGateway({
        port: 0,
        operations: contracts,
        handlers: buildOperationHandlers(config, operations),
        authorizer: authorizerRoot.build(config),
      });
    });
    afterAll(() => gateway?.close());

    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${gateway.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    it('answers 204 with no body and no Content-Type, after which the pet is gone (404)', async () => {
      const created = (await (await call('POST', '/pets', { name: 'Gone', categoryId: 1 })).json()) as {
        id: number;
      };

      const removed = await call('DELETE', `/pets/${created.id}`);

      expect(removed.status).toBe(204);
      expect(await removed.text()).toBe('');
      expect(removed.headers.get('content-type')).toBeNull();
      expect(removed.headers.get('x-content-type-options')).toBe('nosniff');
      expect(removed.headers.get('cache-control')).toBe('no-store');
      expect((await call('GET', `/pets/${created.id}`)).status).toBe(404);
      const again = await call('DELETE', `/pets/${created.id}`);
      expect(again.status).toBe(404);
      expect(await again.json()).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    });

    it('refuses a malformed id with the Error object, as every operation does', async () => {
      const response = await call('DELETE', '/pets/abc');

      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    });

    it('answers 405 with Allow: GET, DELETE to another method on its path', async () => {
      const response = await call('PATCH', '/pets/1', {});

      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, DELETE');
    });
  });

  it('needs nothing beyond its folder: its contract says nothing of storage', () => {
    expect(Object.keys(deletePet)).not.toContain('data');
    expect(deletePetRoot.data).toEqual([{ table: 'pets', actions: ['dynamodb:DeleteItem'] }]);
    expect(deletePetRoot.entry).toBe('test/support/delete-pet/lambda.ts');
  });
});
