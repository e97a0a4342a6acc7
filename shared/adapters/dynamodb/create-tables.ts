import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { ALL_TABLES, type IndexDesign, type TableDesign } from '#shared/adapters/dynamodb/table-design';
import type { TableKey } from '#shared/config';

/** Resolves when the DynamoDB at `endpoint` answers one ListTables within `timeoutMs`; else the SDK's error. */
export const pingDynamoDb = async (endpoint: string, timeoutMs: number): Promise<void> => {
  const client = createLocalClient(endpoint, {
    maxAttempts: 1,
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true },
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
  } finally {
    client.destroy();
  }
};

export type TableNames = Readonly<Record<TableKey, string>>;

/** `<prefix>-pets`, `<prefix>-counters`, `<prefix>-apikeys`, …: DynamoDB Local needs 3+ characters. */
export const tableNamesFor = (prefix: string): TableNames =>
  Object.fromEntries(
    ALL_TABLES.map((table) => [table.key, `${prefix}-${table.logicalName.toLowerCase()}`]),
  ) as Record<TableKey, string>;

const attributeDefinitions = (design: TableDesign) => {
  const keys = [
    design.partitionKey,
    ...design.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  const unique = new Map(keys.map((key) => [key.name, key.type]));
  return [...unique].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
};

const keySchemaOf = (index: IndexDesign) => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'ALL' as const },
});

const streamOf = (design: TableDesign) =>
  design.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: design.stream } } : {};

/** A table made before it had a stream (a data directory of an older version) gets its stream. */
const ensureStream = async (client: DynamoDBClient, TableName: string, design: TableDesign) => {
  if (!design.stream) return;
  const { Table } = await client.send(new DescribeTableCommand({ TableName }));
  if (Table?.StreamSpecification?.StreamEnabled) return;
  await client.send(new UpdateTableCommand({ TableName, ...streamOf(design) }));
};

/** Creates the missing tables of `table-design.ts` outside AWS, as the stack does (DynamoDB Local deletes no expired item). */
export const ensureTables = async (client: DynamoDBClient, names: TableNames): Promise<void> => {
  for (const design of ALL_TABLES) {
    const TableName = names[design.key];
    try {
      await client.send(
        new CreateTableCommand({
          TableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions(design),
          KeySchema: [{ AttributeName: design.partitionKey.name, KeyType: 'HASH' }],
          ...(design.indexes.length > 0 ? { GlobalSecondaryIndexes: design.indexes.map(keySchemaOf) } : {}),
          ...streamOf(design),
        }),
      );
    } catch (error) {
      if (error instanceof ResourceInUseException) {
        await ensureStream(client, TableName, design);
        continue;
      }
      throw error;
    }
    if (design.timeToLiveAttribute) {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName,
          TimeToLiveSpecification: { AttributeName: design.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
  }
};
