import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { ensureTables, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { PET_STATUSES, type Pet } from '#shared/domain/pet';
import { ensureLocalTables } from '#tools/local/local-tables';

/**
 * A data directory made by the code before the status index was sharded: its pets table has the
 * unsharded `status-index` only, and pets without `statusShard`. `npm start` brings it up to date.
 */

const endpoint = inject('dynamoDbEndpoint');
const admin = createLocalClient(endpoint);
afterAll(() => admin.destroy());

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
  it('get the sharded status index, and their pets its key, so listings by status see them all', async () => {
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
  });

  it('are left as they are once up to date: a second start adds and writes nothing', async () => {
    const { names } = await oldTables();
    await ensureLocalTables(admin, endpoint, names);

    const logged: string[] = [];
    const again = await ensureLocalTables(admin, endpoint, names, (line) => logged.push(line));

    expect([again, logged]).toEqual([0, []]);
    expect(await ensureTables(admin, names)).toEqual([]);
  });
});
