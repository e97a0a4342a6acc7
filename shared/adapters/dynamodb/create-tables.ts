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
import {
  ALL_TABLES,
  type IndexDesign,
  LEGACY_STATUS_INDEX,
  type TableDesign,
} from '#shared/adapters/dynamodb/table-design';
import type { TableKey } from '#shared/config';

/**
 * Resolves when the DynamoDB at `endpoint` answers one ListTables within `timeoutMs`, a single
 * attempt; rejects with the SDK's error otherwise (ECONNREFUSED, TimeoutError, …).
 */
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

/** Physical names of the tables outside AWS (DynamoDB Local). */
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

export interface EnsureTablesOptions {
  /**
   * Give the pets table the unsharded `status-index` too, as a stage that is migrating to the
   * sharded one has it (docs/deploy.md): for the tests of that migration. @default false
   */
  readonly legacyStatusIndex?: boolean;
}

/** The designs as a stage deploys them: the pets table with the legacy status index while it migrates. */
export const deployedDesigns = (options: EnsureTablesOptions = {}): readonly TableDesign[] =>
  ALL_TABLES.map((design) =>
    options.legacyStatusIndex && design.key === 'pets'
      ? { ...design, indexes: [...design.indexes, LEGACY_STATUS_INDEX] }
      : design,
  );

const keySchemaOf = (index: IndexDesign) => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'ALL' as const },
});

/** An index `ensureTables` added to a table that existed without it. */
export interface AddedIndex {
  readonly table: TableKey;
  readonly indexName: string;
}

/** How long an index added to an existing table may take to become usable, and how often to look. */
const INDEX_ACTIVE_TIMEOUT_MS = 60_000;
const INDEX_POLL_MS = 100;

/** Resolves once the index can be read and written (DynamoDB Local fails writes while it is CREATING). */
const untilIndexActive = async (client: DynamoDBClient, TableName: string, indexName: string) => {
  const deadline = Date.now() + INDEX_ACTIVE_TIMEOUT_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    const status = Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === indexName)?.IndexStatus;
    if (status === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`Index ${indexName} of ${TableName} is still ${status}`);
    await new Promise((resolve) => setTimeout(resolve, INDEX_POLL_MS));
  }
};

/**
 * Adds the indexes of its design that an existing table lacks (a local table made by an older
 * version of the code), one at a time as DynamoDB allows, each ready before the next. Items
 * already there enter an index once they carry its key attributes.
 */
const addMissingIndexes = async (
  client: DynamoDBClient,
  TableName: string,
  design: TableDesign,
): Promise<AddedIndex[]> => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  const added: AddedIndex[] = [];
  for (const index of design.indexes.filter((candidate) => !present.has(candidate.indexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName,
        AttributeDefinitions: attributeDefinitions({ ...design, indexes: [index] }),
        GlobalSecondaryIndexUpdates: [{ Create: keySchemaOf(index) }],
      }),
    );
    await untilIndexActive(client, TableName, index.indexName);
    added.push({ table: design.key, indexName: index.indexName });
  }
  return added;
};

/**
 * Creates the tables of `table-design.ts` that do not exist yet, on-demand and with their TTL
 * attribute, as the stack does, and adds to a table that exists the indexes it lacks. Used
 * outside AWS only: by the local server, the tests and the benchmark. (DynamoDB Local records
 * the TTL setting; it does not delete expired items.) Resolves to the indexes it added.
 */
export const ensureTables = async (
  client: DynamoDBClient,
  names: TableNames,
  options: EnsureTablesOptions = {},
): Promise<AddedIndex[]> => {
  const added: AddedIndex[] = [];
  for (const design of deployedDesigns(options)) {
    const TableName = names[design.key];
    try {
      await client.send(
        new CreateTableCommand({
          TableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions(design),
          KeySchema: [{ AttributeName: design.partitionKey.name, KeyType: 'HASH' }],
          ...(design.indexes.length > 0 ? { GlobalSecondaryIndexes: design.indexes.map(keySchemaOf) } : {}),
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
      added.push(...(await addMissingIndexes(client, TableName, design)));
      continue;
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
  return added;
};
