import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPetFunction } from '#functions/create-pet';
import { getPetFunction } from '#functions/get-pet';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import type { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { createLogger } from '#shared/observability/logger';
import { lambdaContext } from '#tools/lambda/context';
import { proxyEvent } from '#tools/lambda/events';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * What the functions tell CloudWatch: createPet's EMF metric line and every function's structured
 * logs on stdout, as Powertools writes them in Lambda; the stack's metric filters count errors by
 * code from those lines (infra/constructs/monitoring.ts). Captured here from the real Powertools,
 * not silenced.
 */

type Json = Record<string, unknown> & {
  _aws?: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] };
};

/** What the process writes to stdout and stderr (Powertools writes errors to stderr). */
let written: string[];
const captureStdout = () => {
  written = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
};
afterEach(() => vi.restoreAllMocks());

const lines = (): Json[] =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Json);
const metricLines = (name: string) =>
  lines().filter((line) => line._aws?.CloudWatchMetrics[0]?.Metrics.some((metric) => metric.Name === name));

const context = lambdaContext('createPet', { awsRequestId: 'req-1' });

/** getPet's pets table, its reads answering `get`. */
const petsThat = (get: PetsTable['get']): Pick<PetsTable, 'get'> => ({ get });

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables('observability');
});

describe('EMF metrics', () => {
  it('counts a created pet in namespace PetStore, tagged with the service and the stage', async () => {
    const handler = createPetFunction.build({
      ...tables.config,
      logLevel: 'SILENT',
      metrics: true,
      stage: 'production',
    });
    captureStdout();

    const result = await handler(
      proxyEvent({
        method: 'POST',
        path: '/pets',
        resource: '/pets',
        headers: [['Content-Type', 'application/json']],
        body: '{"name":"Rex","categoryId":1}',
        requestId: 'req-1',
      }),
      context,
    );

    expect(result.statusCode).toBe(201);
    const [created] = metricLines('PetsCreated');
    expect(created).toMatchObject({ PetsCreated: 1, service: 'pet-store', stage: 'production' });
    expect(created?._aws?.CloudWatchMetrics[0]?.Namespace).toBe('PetStore');
  });

  it('are written by createPet alone: a read answers, error or not, with no EMF line', async () => {
    const handler = getPetFunction.handler({
      pets: petsThat(async () => undefined),
      logger: createLogger({ logLevel: 'INFO' }),
    });
    captureStdout();

    const result = await handler(
      proxyEvent({
        method: 'GET',
        path: '/pets/9',
        resource: '/pets/{petId}',
        pathParameters: { petId: '9' },
        requestId: 'req-2',
      }),
      context,
    );

    expect(result.statusCode).toBe(404);
    expect(lines().filter((line) => line._aws)).toEqual([]);
    // What the stack's metric filter counts by code instead: the line of the error answer.
    expect(lines().filter((line) => 'code' in line)).toEqual([
      expect.objectContaining({
        message: 'Request rejected',
        level: 'INFO',
        code: 'NOT_FOUND',
        function_name: 'createPet',
      }),
    ]);
  });
});

describe('logs', () => {
  it('log the cause of a 500 at ERROR, and only its generic message reaches the client', async () => {
    const failing = petsThat(() => Promise.reject(new Error('disk on fire at shard 7')));
    const handler = getPetFunction.handler({
      pets: failing,
      logger: createLogger({ logLevel: 'INFO' }),
    });
    captureStdout();

    const result = await handler(
      proxyEvent({
        method: 'GET',
        path: '/pets/9',
        resource: '/pets/{petId}',
        pathParameters: { petId: '9' },
        requestId: 'req-3',
      }),
      context,
    );

    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('disk on fire');
    const logged = lines().find((line) => line.message === 'Request failed');
    expect(logged).toMatchObject({ level: 'ERROR', code: 'INTERNAL_ERROR', service: 'pet-store' });
    expect(JSON.stringify(logged)).toContain('disk on fire at shard 7');
  });

  it('log a malformed stored item by its id and what is wrong with it, never by what it holds', async () => {
    const raw = createLocalClient(tables.endpoint);
    await raw.send(
      new PutItemCommand({
        TableName: tables.names.pets,
        Item: {
          id: { N: '77' },
          name: { S: 'secret name' },
          categoryId: { N: '0' },
          status: { S: 'sold' },
        },
      }),
    );
    raw.destroy();
    const handler = getPetFunction.build({ ...tables.config, logLevel: 'INFO' });
    captureStdout();

    const result = await handler(
      proxyEvent({
        method: 'GET',
        path: '/pets/77',
        resource: '/pets/{petId}',
        pathParameters: { petId: '77' },
        requestId: 'req-4',
      }),
      context,
    );

    expect(result.statusCode).toBe(500);
    const logged = lines().find((line) => line.message === 'Request failed');
    expect(logged).toMatchObject({
      level: 'ERROR',
      code: 'INTERNAL_ERROR',
      error: expect.objectContaining({
        name: 'InvalidStoredItemError',
        message: 'The stored pet 77 is not valid: categoryId: must be at least 1',
      }),
    });
    expect(JSON.stringify(logged)).not.toContain('secret');
  });

  it("name the request on every line by API Gateway's request id, the Error body's requestId, and forget it after", async () => {
    const handler = getPetFunction.handler({
      pets: petsThat(async () => undefined),
      logger: createLogger({ logLevel: 'INFO' }),
    });
    const request = (requestId: string) =>
      proxyEvent({
        method: 'GET',
        path: '/pets/9',
        resource: '/pets/{petId}',
        pathParameters: { petId: 'nine' },
        requestId,
      });
    // An event with no request id (a test's, a console invocation's) names no request.
    const anonymous = request('unused');
    delete (anonymous.requestContext as { extendedRequestId?: string }).extendedRequestId;
    captureStdout();

    const first = await handler(request('req-4'), context);
    const second = await handler(request('req-5'), context);
    const third = await handler(anonymous, context);

    expect([first.statusCode, JSON.parse(first.body).requestId]).toEqual([400, 'req-4']);
    const logged = lines().filter((line) => line.message === 'Request rejected');
    expect(logged.map((line) => line.correlation_id)).toEqual(['req-4', 'req-5', undefined]);
    expect([second.statusCode, third.statusCode]).toEqual([400, 400]);
  });
});
