import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { ensureTables, type TableNames, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import type { ApiKeyRecord } from '#shared/auth/api-key';
import { PET_STATUSES, type Pet } from '#shared/domain/pet';

/** Clients that create and fill tables on DynamoDB Local, outside any measurement. */
export interface Admin {
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
}

export const adminFor = (endpoint: string): Admin => {
  const client = createLocalClient(endpoint, { maxAttempts: 10 });
  return { client, doc: DynamoDBDocumentClient.from(client) };
};

/** Fresh tables named `<prefix>-<random>-pets` …, so runs never see each other's data. */
export const createBenchTables = async (admin: Admin, prefix: string): Promise<TableNames> => {
  const names = tableNamesFor(`${prefix}-${randomUUID().slice(0, 8)}`);
  await ensureTables(admin.client, names);
  return names;
};

/** Pet `id` as the bench writes it: statuses in turn, names like the ones clients send. */
export const benchPet = (id: number): Pet => ({
  id,
  name: `Pet ${id}`,
  categoryId: 1 + (id % 12),
  status: PET_STATUSES[id % PET_STATUSES.length] as Pet['status'],
});

const BATCH = 25;
const PARALLEL_BATCHES = 8;

/** The last id the id sequence has leased (0 on fresh tables). */
const leasedUpTo = async (admin: Admin, names: TableNames): Promise<number> => {
  const { Item } = await admin.doc.send(
    new GetCommand({ TableName: names.counters, Key: { name: PET_ID_SEQUENCE }, ConsistentRead: true }),
  );
  return Number(Item?.value ?? 0);
};

/**
 * Writes `count` pets with the ids after the last one the id sequence has leased, with
 * BatchWriteItem (25 a call, a few calls in flight, unprocessed items retried), then moves the id
 * sequence past them: creates never collide with a seeded id, whether their function holds a
 * block leased before or leases one after. Much faster than the API, and not what is measured.
 */
export const seedPets = async (admin: Admin, names: TableNames, count: number): Promise<void> => {
  const firstId = (await leasedUpTo(admin, names)) + 1;
  const petsTable = names.pets;
  const batches: Pet[][] = [];
  for (let start = 0; start < count; start += BATCH) {
    batches.push(
      Array.from({ length: Math.min(BATCH, count - start) }, (_, index) => benchPet(firstId + start + index)),
    );
  }
  const writeBatch = async (pets: Pet[]) => {
    let requests: unknown[] = pets.map((pet) => ({ PutRequest: { Item: petItem(pet) } }));
    while (requests.length > 0) {
      const { UnprocessedItems } = await admin.doc.send(
        new BatchWriteCommand({ RequestItems: { [petsTable]: requests as never } }),
      );
      requests = UnprocessedItems?.[petsTable] ?? [];
    }
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL_BATCHES }, async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        if (batch) await writeBatch(batch);
      }
    }),
  );
  await raiseIdSequence(admin, names, firstId + count - 1);
};

/** Sets the id sequence to at least `value` (never lowers it: ids are never reused). */
export const raiseIdSequence = async (admin: Admin, names: TableNames, value: number): Promise<void> => {
  try {
    await admin.doc.send(
      new UpdateCommand({
        TableName: names.counters,
        Key: { name: PET_ID_SEQUENCE },
        UpdateExpression: 'SET #value = :value',
        ConditionExpression: 'attribute_not_exists(#value) OR #value < :value',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':value': value },
      }),
    );
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
  }
};

/** Stores an API key's record (its hash, never the key), for the authorizer's event. */
export const storeApiKey = async (admin: Admin, names: TableNames, record: ApiKeyRecord): Promise<void> => {
  await admin.doc.send(new PutCommand({ TableName: names.apiKeys, Item: record }));
};
