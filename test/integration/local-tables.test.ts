import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { ensureTables, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { PET_STATUSES, type Pet } from '#shared/domain/pet';
import { type DynamoDbLocal, startDynamoDbLocal } from '#tools/local/dynamodb-local';
import { ensureLocalTables } from '#tools/local/local-tables';

/**
 * A data directory made by the code before the status index was sharded: its pets table has the
 * unsharded `status-index` only, and pets without `statusShard`. `npm start` brings it up to date.
 */

/**
 * A DynamoDB Local of this file's own, holding only its few tables, as a developer's has: the
 * run's shared one holds hundreds of tables by the time this file runs, and DynamoDB Local then
 * never makes an index added to a table ACTIVE (measured: under a second with 80 tables, never
 * within 20 s with 120). On a quiet machine an added index is ACTIVE in about 1.5 s; the limit
 * below leaves room for a busy one.
 */
const INDEX_ADDED_TIMEOUT_MS = 30_000;
let db: DynamoDbLocal;
let admin: DynamoDBClient;
let endpoint: string;
beforeAll(async () => {
  db = await startDynamoDbLocal();
  endpoint = db.endpoint;
  admin = createLocalClient(endpoint);
}, 60_000);
afterAll(async () => {
  admin?.destroy();
  await db?.stop();
});

/** Tables as the old code made them: the pets table keyed and indexed as it was, 40 pets in it. */
const oldTables = async () => {
  const names = tableNamesFor(`old-local-${randomUUID().slice(0, 8)}`);
  await admin.send(
    new CreateTableCommand({
      TableName: names.pets,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'N' },
        { AttributeName: 'status', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'status-index',
          KeySchema: [
            { AttributeName: 'status', KeyType: 'HASH' },
            { AttributeName: 'id', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  const pets: Pet[] = Array.from({ length: 40 }, (_, index) => ({
    id: index + 1,
    name: `Old ${index + 1}`,
    categoryId: 1,
    status: PET_STATUSES[index % 3] as Pet['status'],
  }));
  const documents = DynamoDBDocumentClient.from(admin);
  for (const batch of [pets.slice(0, 20), pets.slice(20)]) {
    await documents.send(
      new BatchWriteCommand({
        RequestItems: { [names.pets]: batch.map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
  }
  return { names, pets };
};

describe('the local tables of an older data directory', () => {
  it(
    'get the sharded status index, and their pets its key, so listings by status see them all',
    async () => {
      const { names, pets } = await oldTables();
      const logged: string[] = [];

      const migrated = await ensureLocalTables(admin, endpoint, names, (line) => logged.push(line));

      expect(migrated).toBe(40);
      expect(logged).toEqual([
        'The local pets table predates the sharded status index: added it, and keyed 40 pets for it',
      ]);
      const { Table } = await admin.send(new DescribeTableCommand({ TableName: names.pets }));
      expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual([
        'status-index',
        'status-shard-index',
      ]);
      const repository = new DynamoDbPetRepository({
        client: DynamoDBDocumentClient.from(admin),
        petsTable: names.pets,
      });
      const sold = await repository.list({ limit: 100, status: 'sold' });
      expect(sold.pets.map((pet) => pet.id).sort((a, b) => a - b)).toEqual(
        pets.filter((pet) => pet.status === 'sold').map((pet) => pet.id),
      );
    },
    INDEX_ADDED_TIMEOUT_MS,
  );

  it(
    'are left as they are once up to date: a second start adds and writes nothing',
    async () => {
      const { names } = await oldTables();
      await ensureLocalTables(admin, endpoint, names);

      const logged: string[] = [];
      const again = await ensureLocalTables(admin, endpoint, names, (line) => logged.push(line));

      expect([again, logged]).toEqual([0, []]);
      expect(await ensureTables(admin, names)).toEqual([]);
    },
    INDEX_ADDED_TIMEOUT_MS,
  );
});
