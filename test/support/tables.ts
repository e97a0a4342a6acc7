import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { SCOPE_RESOURCES } from '#functions/operations';
import { createDocumentClient, createLocalClient } from '#shared/adapters/dynamodb/client';
import { ensureTables, type TableNames, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import type { FunctionConfig } from '#shared/config';
import { TEST_PLANS } from './plans';

export interface TestTables {
  readonly endpoint: string;
  readonly names: TableNames;
  /** A function configuration for these tables: every table, this DynamoDB, silent logs, no metrics, TEST_PLANS, the stack's scopes. */
  readonly config: FunctionConfig;
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
  return {
    endpoint,
    names,
    config: {
      tables: names,
      dynamoDb: { endpoint },
      logLevel: 'SILENT',
      metrics: false,
      plans: TEST_PLANS,
      scopes: SCOPE_RESOURCES,
    },
  };
};

/** The API keys of these tables, through the adapter the authorizer uses. */
export const apiKeysOf = (tables: TestTables): DynamoDbApiKeyRepository =>
  new DynamoDbApiKeyRepository({
    client: createDocumentClient({ endpoint: tables.endpoint }),
    apiKeysTable: tables.names.apiKeys,
  });
