import { generateApiKey } from '#shared/auth/api-key';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import { localFunctions } from '#tools/local/local-stack';
import { ApiClient } from './api-client';
import { loadContract } from './conformance';
import { apiKeysOf, createTestTables, type TestTables } from './tables';

/** docs/openapi.yaml, loaded once per test file. */
const contract = loadContract();

export interface LocalApi {
  /** Holds every response to docs/openapi.yaml: a response that breaks it fails the test. */
  readonly client: ApiClient;
  readonly gateway: LocalGateway;
  readonly tables: TestTables;
  readonly apiKey: string;
  close(): Promise<void>;
}

/**
 * The local server in front of the real handlers and the real authorizer (each built by its
 * composition root, as `npm start` builds them), on tables of its own in the run's DynamoDB
 * Local, with one valid key. Its `client` checks every response against docs/openapi.yaml.
 */
export const startLocalApi = async (label: string): Promise<LocalApi> => {
  const tables = await createTestTables(label);
  const { key, record } = generateApiKey(`${label} tests`);
  await apiKeysOf(tables).put(record);
  const gateway = await startLocalGateway({
    port: 0,
    ...localFunctions({ endpoint: tables.endpoint, tables: tables.names, logLevel: 'SILENT' }),
  });
  return {
    client: ApiClient.checkedAgainst(contract, gateway.baseUrl, key),
    gateway,
    tables,
    apiKey: key,
    close: () => gateway.close(),
  };
};
