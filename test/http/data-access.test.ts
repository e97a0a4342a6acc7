import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PETS, listPets, listPetsFunction, PETS_BY_STATUS } from '#functions/list-pets';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { listingsOf, PetsTable, petsTable } from '#shared/adapters/dynamodb/pets-table';
import { STATUS_SHARD_INDEX } from '#shared/adapters/dynamodb/table-design';
import { defineFunction, operationFunction } from '#shared/composition/function';
import { lambdaContext } from '#tools/lambda/context';
import { proxyEvent } from '#tools/lambda/events';
import { inInvocationStore } from '#tools/lambda/invoke-store';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { writtenDuring } from '../support/output';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * Outside AWS, each function's DynamoDB client refuses any call its uses do not declare, as IAM
 * refuses its role in AWS (shared/composition/function.ts): so a declaration that misses a call
 * of its adapter's method fails here as it would in Lambda, answered and logged as AWS's
 * AccessDeniedException would be. (A call of a method it does not declare does not compile:
 * test/types/table-access.test-d.ts.) That each function declares no more than it calls is
 * checked over the contract suite's run (test/http/contract.test.ts).
 */

/** listPets with the index's entry forgotten: the Scan of an unfiltered page only. */
const listing = listingsOf(ALL_PETS, PETS_BY_STATUS);
const forgetful = operationFunction(listPets, {
  uses: { pets: { ...listing, data: listing.data.filter((access) => access.index === undefined) } },
  handler: listPetsFunction.handler,
});

/** The call it lacks, as the refusal names it. */
const MISSING = `lack { table: 'pets', index: '${STATUS_SHARD_INDEX.indexName}', actions: ['dynamodb:Query'] }`;

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables('access');
});

describe('a function whose uses lack a call', () => {
  const request = (query: [string, string][]) =>
    proxyEvent({
      method: 'GET',
      path: '/pets',
      resource: '/pets',
      query,
      requestId: 'access-request',
      authorizer: { principalId: 'key-1' },
    });

  it('is refused that call when built directly, answering 500 and logging the entry it lacks', async () => {
    // In an invocation store of its own, as every invocation in this project's processes: they run
    // the local gateway, which lets invocations overlap (tools/lambda/invoke-store.ts).
    const handler = inInvocationStore(forgetful.build({ ...tables.config, logLevel: 'ERROR' }));

    const granted = (await handler(request([]), lambdaContext('listPets'))) as APIGatewayProxyResult;
    const { result: refused, written: logged } = await writtenDuring(
      async () =>
        (await handler(request([['status', 'sold']]), lambdaContext('listPets'))) as APIGatewayProxyResult,
    );

    expect(granted.statusCode).toBe(200);
    expect(refused.statusCode).toBe(500);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(logged).toContain('AccessDeniedException');
    expect(logged).toContain(
      `is not authorized to perform: dynamodb:Query on resource: table/${tables.names.pets}/index/${STATUS_SHARD_INDEX.indexName}`,
    );
    expect(logged).toContain(MISSING);
  });

  describe('behind the local gateway', () => {
    let api: LocalApi;
    beforeAll(async () => {
      api = await startLocalApi('access-gateway', {
        handlers: (own) => ({ listPets: forgetful.build({ ...own.config, logLevel: 'SILENT' }) }),
      });
    });
    afterAll(() => api?.close());

    it('is answered as Lambda answers a function its role refuses: 500 INTERNAL_ERROR, the granted call served', async () => {
      const granted = await api.client.get('/pets');
      const refused = await api.client.get('/pets?status=sold');

      expect(granted.status).toBe(200);
      expect(refused.status).toBe(500);
      expect(refused.json).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    });
  });
});

describe('where the grants are enforced', () => {
  /** A function whose handler is the configuration it was built with. */
  const probe = defineFunction({
    name: 'probe',
    uses: { pets: petsTable.allow('get') },
    handler: (_dependencies, config) => {
      if (!config) throw new Error('A build always passes its configuration');
      return config;
    },
  });

  it('is wherever the function reaches a DynamoDB of its own (an endpoint), never in Lambda, where IAM does it', () => {
    const local = probe.build(tables.config);
    const lambda = probe.build({ ...tables.config, dynamoDb: {} });

    expect(local.dynamoDb.grants).toEqual({
      name: 'probe',
      data: [{ table: 'pets', actions: ['dynamodb:GetItem'] }],
      tables: tables.names,
    });
    expect(lambda.dynamoDb.grants).toBeUndefined();
  });
});

describe('the DynamoDB calls of the pet repository', () => {
  it('read a pet strongly consistently, so a pet just created can be read back at once', async () => {
    const inputs: Record<string, unknown>[] = [];
    const base = createLocalClient(tables.endpoint);
    base.middlewareStack.add(
      (next) => async (args) => {
        inputs.push({ ...(args.input as Record<string, unknown>) });
        return next(args);
      },
      { step: 'initialize', name: 'recordInputs' },
    );
    const pets = new PetsTable({
      client: DynamoDBDocumentClient.from(base),
      petsTable: tables.names.pets,
    });

    await pets.get(1);

    expect(inputs).toEqual([expect.objectContaining({ ConsistentRead: true })]);
  });
});
