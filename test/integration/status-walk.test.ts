import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_PETS, PETS_BY_STATUS } from '#functions/list-pets';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import type { Pet } from '#shared/domain/pet';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * The listing by status on its sharded index (`status-shard-index`, partition key
 * `<status>#<id mod 16>`): what it reads, in which order, and which positions it accepts.
 */

/** A document client that records each Query's index, key and the items DynamoDB read. */
const recordingClient = (endpoint: string) => {
  const queries: { index: string | undefined; key: unknown; scanned: number | undefined }[] = [];
  const base = createLocalClient(endpoint);
  base.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'QueryCommand') {
        const input = args.input as {
          IndexName?: string;
          ExpressionAttributeValues?: Record<string, unknown>;
        };
        queries.push({
          index: input.IndexName,
          key: input.ExpressionAttributeValues?.[':key'],
          scanned: (result.output as { ScannedCount?: number }).ScannedCount,
        });
      }
      return result;
    },
    { step: 'initialize', name: 'recordQueries' },
  );
  return { client: DynamoDBDocumentClient.from(base), queries };
};

const pet = (id: number, status: Pet['status']): Pet => ({ id, name: `Pet ${id}`, categoryId: 1, status });

describe('the sharded status index', () => {
  let tables: TestTables;
  beforeAll(async () => {
    tables = await createTestTables('status-walk');
  });
  const repositoryOf = () => {
    const { client, queries } = recordingClient(tables.endpoint);
    return { repository: new PetsTable({ client, petsTable: tables.names.pets }), queries };
  };

  it('stores each pet with the key of its shard: status, then id modulo 16', async () => {
    const { repository } = repositoryOf();
    await repository.create(pet(1_000_035, 'pending'));

    const { Item } = await DynamoDBDocumentClient.from(createLocalClient(tables.endpoint)).send(
      new GetCommand({ TableName: tables.names.pets, Key: { id: 1_000_035 } }),
    );

    expect(Item?.statusShard).toBe('pending#3');
    expect(await repository.get(1_000_035)).toEqual({ pet: pet(1_000_035, 'pending'), version: 1 });
  });

  it('reads every shard once, and nothing more, for a status without pets: one empty page, no next', async () => {
    const { repository, queries } = repositoryOf();

    const page = await repository.page(PETS_BY_STATUS, { limit: 20, filter: 'sold' });

    expect(page).toEqual({ pets: [] });
    expect(queries.map((query) => query.key)).toEqual(
      Array.from({ length: STATUS_SHARDS }, (_, shard) => `sold#${shard}`),
    );
    expect(queries.every((query) => query.index === 'status-shard-index' && query.scanned === 0)).toBe(true);
  });

  it('crosses into the next shard within a page, and starts the next page at the first pet not shown', async () => {
    const own = await createTestTables('status-cross');
    const { client, queries } = recordingClient(own.endpoint);
    const repository = new PetsTable({ client, petsTable: own.names.pets });
    // Shard 0: 16, 32, 48; shard 1: 1, 17, 33; shard 2: 2.
    for (const id of [1, 2, 16, 17, 32, 33, 48]) await repository.create(pet(id, 'available'));

    const first = await repository.page(PETS_BY_STATUS, { limit: 4, filter: 'available' });
    const reads = queries.splice(0).map((query) => [query.key, query.scanned]);
    const second = await repository.page(PETS_BY_STATUS, {
      limit: 4,
      filter: 'available',
      after: first.next ?? [],
    });

    expect(first.pets.map((p) => p.id)).toEqual([16, 32, 48, 1]);
    expect(first.next).toEqual([{ fromId: 17 }]);
    expect(reads).toEqual([
      ['available#0', 3],
      ['available#1', 2],
    ]);
    expect(second.pets.map((p) => p.id)).toEqual([17, 33, 2]);
    expect(second.next).toBeUndefined();
  });

  it('refuses, before any read, a position the other listing issues: a fault of the code, not of a cursor', async () => {
    const { repository, queries } = repositoryOf();

    await expect(
      repository.page(PETS_BY_STATUS, { limit: 5, filter: 'pending', after: [{ afterId: 7 }] }),
    ).rejects.toThrow('This listing continues from fromId positions only');
    await expect(repository.page(ALL_PETS, { limit: 5, after: [{ fromId: 7 }] })).rejects.toThrow(
      'This listing continues from afterId positions only',
    );
    expect(queries).toEqual([]);
  });

  it('goes on in the same shard when DynamoDB stops at its 1 MB page inside it', async () => {
    const own = await createTestTables('status-1mb');
    const client = DynamoDBDocumentClient.from(createLocalClient(own.endpoint));
    // Four items of 390 KB in shard 0: a Query page (1 MB) holds at most three of them.
    for (const id of [16, 32, 48, 64]) {
      await client.send(
        new PutCommand({
          TableName: own.names.pets,
          Item: { ...pet(id, 'sold'), statusShard: 'sold#0', padding: 'x'.repeat(390_000) },
        }),
      );
    }
    const repository = new PetsTable({ client, petsTable: own.names.pets });

    const page = await repository.page(PETS_BY_STATUS, { limit: 10, filter: 'sold' });

    expect(page).toEqual({ pets: [16, 32, 48, 64].map((id) => pet(id, 'sold')) });
  });
});
