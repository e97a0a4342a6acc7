import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { ensureTables, type TableNames } from '#shared/adapters/dynamodb/create-tables';
import { backfillStatusShards } from '#shared/adapters/dynamodb/status-shard-backfill';
import { STATUS_SHARD_INDEX } from '#shared/adapters/dynamodb/table-design';

/**
 * The local server's tables, made where missing and brought up to date where a data directory
 * was made by an older version of the code: a pets table without the sharded status index gets
 * the index, and its pets their `statusShard` key (the backfill a deployed stage runs by hand,
 * docs/deploy.md), so `npm start` keeps an old `.data` working. Resolves to the pets migrated.
 */
export const ensureLocalTables = async (
  admin: DynamoDBClient,
  endpoint: string,
  tables: TableNames,
  log: (line: string) => void = () => undefined,
): Promise<number> => {
  const added = await ensureTables(admin, tables);
  if (!added.some(({ table, indexName }) => table === 'pets' && indexName === STATUS_SHARD_INDEX.indexName)) {
    return 0;
  }
  const client = createDocumentClient({ endpoint });
  try {
    const { updated } = await backfillStatusShards({ client, petsTable: tables.pets });
    log(`The local pets table predates the sharded status index: added it, and keyed ${updated} pets for it`);
    return updated;
  } finally {
    client.destroy();
  }
};
