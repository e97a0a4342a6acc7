import { randomUUID } from 'node:crypto';
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
import { ENV } from '#shared/config';
import { PET_STATUSES } from '#shared/domain/pet';
import { changesItsPet } from './lambda-context';
import { SETUP_AGENT } from './metering';

export const adminFor = (endpoint: string) => {
  const client = createLocalClient(endpoint, { maxAttempts: 10 });
  return { client, doc: DynamoDBDocumentClient.from(client) };
};
export type Admin = ReturnType<typeof adminFor>;

/** Fresh tables named `<prefix>-<random>-pets` …, so runs never see each other's data; the bench's key stored. */
export const createBenchTables = async (
  admin: Admin,
  prefix: string,
  key?: ApiKeyRecord,
): Promise<TableNames> => {
  const names = tableNamesFor(`${prefix}-${randomUUID().slice(0, 8)}`);
  await ensureTables(admin.client, names);
  if (key) await admin.doc.send(new PutCommand({ TableName: names.apiKeys, Item: key }));
  return names;
};

/** The pet the bench seeds under `id`. */
const seededPet = (id: number) =>
  petItem({
    id,
    name: `Pet ${id}`,
    categoryId: 1 + (id % 12),
    status: PET_STATUSES[id % PET_STATUSES.length] ?? 'available',
  });

/** In-process: after each PATCH or DELETE, its pet put back as seeded, outside the meter. */
export const restorerOf = (event: unknown, admin: Admin, TableName: string): (() => Promise<void>) => {
  if (!changesItsPet(event)) return async () => {};
  const { pathParameters } = event as { pathParameters?: Record<string, string> };
  const Item = seededPet(Number(pathParameters?.petId));
  return async () => void (await admin.doc.send(new PutCommand({ TableName, Item })));
};

/** In a child (bench/child.ts), running side by side: each removal gets a pet of its own, put first. */
export const freshSubjectInChild = (): ((request: unknown) => Promise<void>) => {
  const doc = DynamoDBDocumentClient.from(
    createLocalClient(process.env[ENV.dynamoDbEndpoint] ?? '', { customUserAgent: SETUP_AGENT }),
  );
  const TableName = process.env[ENV.tables.pets] ?? '';
  return async (request) => {
    // Random past 2^52, far past any id the sequence hands out; seeded `pending` (2^52 is 1 modulo 3).
    const id = 2 ** 52 + 3 * Math.floor(Math.random() * 2 ** 38);
    await doc.send(new PutCommand({ TableName, Item: seededPet(id) }));
    const target = request as { path: string; pathParameters: Record<string, string> };
    target.path = target.path.replace(target.pathParameters.petId ?? '', String(id));
    target.pathParameters.petId = String(id);
  };
};

/** `count` pets after the sequence's last id (25 a batch, 8 in flight), then the sequence moved past them. */
export const seedPets = async (admin: Admin, names: TableNames, count: number): Promise<void> => {
  const { Item } = await admin.doc.send(
    new GetCommand({ TableName: names.counters, Key: { name: PET_ID_SEQUENCE }, ConsistentRead: true }),
  );
  const first = Number(Item?.value ?? 0) + 1;
  let next = 0;
  const writer = async () => {
    while (next < count) {
      const ids = Array.from({ length: Math.min(25, count - next) }, (_, index) => first + next + index);
      next += ids.length;
      let requests: Record<string, unknown>[] = ids.map((id) => ({
        PutRequest: { Item: seededPet(id) },
      }));
      while (requests.length > 0) {
        const { UnprocessedItems } = await admin.doc.send(
          new BatchWriteCommand({ RequestItems: { [names.pets]: requests } }),
        );
        requests = UnprocessedItems?.[names.pets] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
  try {
    await admin.doc.send(
      new UpdateCommand({
        TableName: names.counters,
        Key: { name: PET_ID_SEQUENCE },
        UpdateExpression: 'SET #value = :value',
        // Never lowered: ids are never reused.
        ConditionExpression: 'attribute_not_exists(#value) OR #value < :value',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':value': first + count - 1 },
      }),
    );
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
  }
};
