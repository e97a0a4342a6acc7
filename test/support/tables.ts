import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import {
  ensureTables,
  type TableNames,
  tableEnvironment,
  tableNamesFor,
} from '#shared/adapters/dynamodb/create-tables';

export interface TestTables {
  readonly endpoint: string;
  readonly names: TableNames;
  /** The environment the composition root reads: endpoint plus these tables. */
  readonly env: Record<string, string>;
}

/** Fresh tables on the run's DynamoDB Local, named uniquely so test files never see each other's data. */
export const createTestTables = async (label: string): Promise<TestTables> => {
  const endpoint = inject('dynamoDbEndpoint');
  const names = tableNamesFor(`${label}-${randomUUID().slice(0, 8)}`);
  const client = createLocalClient(endpoint);
  try {
    await ensureTables(client, names);
  } finally {
    client.destroy();
  }
  return { endpoint, names, env: { DYNAMODB_ENDPOINT: endpoint, ...tableEnvironment(names) } };
};
