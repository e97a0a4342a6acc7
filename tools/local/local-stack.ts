import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type DynamoDbLocal, startDynamoDbLocal } from '#infra/local/dynamodb-local';
import {
  type LocalGateway,
  type ProxyHandler,
  startLocalGateway,
  type TokenAuthorizer,
} from '#infra/local/gateway';
import { referenceRoutes } from '#infra/openapi/reference';
import { PROJECT_ROOT } from '#infra/project-root';
import { AUTHORIZER_ENTRY, ROUTES, type Route } from '#infra/routes';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { ensureTables, tableEnvironment, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { generateApiKey, parseBearerToken, recordFor } from '#shared/auth/api-key';
import { apiKeyRepository } from '#shared/composition/api-keys';

/** Table names of the local server: `petstore-local-pets`, … */
export const LOCAL_TABLE_PREFIX = 'petstore-local';

export interface LocalStackOptions {
  /** Where the database and the generated key live. */
  readonly dataDir: string;
  /** @default 3000 */
  readonly port?: number;
  /** The key to accept; generated once and kept in `dataDir` when omitted. */
  readonly apiKey?: string;
  /** An already running DynamoDB; DynamoDB Local is started when omitted. */
  readonly dynamoDbEndpoint?: string;
  readonly log?: (line: string) => void;
}

export interface LocalStack {
  readonly gateway: LocalGateway;
  readonly apiKey: string;
  readonly apiKeySource: 'PETSTORE_API_KEY' | 'generated' | 'data dir';
  readonly dynamoDbEndpoint: string;
  /** Set when this stack started DynamoDB Local itself. */
  readonly dynamoDbLocal: DynamoDbLocal | undefined;
  stop(): Promise<void>;
}

export class LocalConfigError extends Error {
  override readonly name = 'LocalConfigError';
}

const localKey = (options: LocalStackOptions): Pick<LocalStack, 'apiKey' | 'apiKeySource'> => {
  if (options.apiKey !== undefined) {
    if (!parseBearerToken(`Bearer ${options.apiKey}`)) {
      throw new LocalConfigError('PETSTORE_API_KEY must be a token of letters, digits and -._~+/ characters');
    }
    return { apiKey: options.apiKey, apiKeySource: 'PETSTORE_API_KEY' };
  }
  const file = join(options.dataDir, 'api-key');
  if (existsSync(file)) return { apiKey: readFileSync(file, 'utf8').trim(), apiKeySource: 'data dir' };
  const { key } = generateApiKey('local');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { apiKey: key, apiKeySource: 'generated' };
};

const importHandler = async <T>(entry: string): Promise<T> => {
  const module = (await import(pathToFileURL(join(PROJECT_ROOT, entry)).href)) as { handler: T };
  return module.handler;
};

/**
 * Everything `npm start` runs: DynamoDB Local (unless an endpoint is given), the tables, the local
 * key, and the gateway in front of the real function entries, loaded exactly as Lambda loads
 * them: by importing each entry with its configuration in the environment.
 */
export const startLocalStack = async (options: LocalStackOptions): Promise<LocalStack> => {
  mkdirSync(options.dataDir, { recursive: true });
  const key = localKey(options);
  const reference = referenceRoutes(); // renders while DynamoDB Local starts
  const dynamoDbLocal = options.dynamoDbEndpoint
    ? undefined
    : await startDynamoDbLocal({ dataDir: join(options.dataDir, 'dynamodb') });
  try {
    const endpoint = options.dynamoDbEndpoint ?? (dynamoDbLocal as DynamoDbLocal).endpoint;
    const names = tableNamesFor(LOCAL_TABLE_PREFIX);
    const admin = createLocalClient(endpoint);
    try {
      await ensureTables(admin, names);
    } finally {
      admin.destroy();
    }

    // The functions' configuration, as the stack would set it in Lambda.
    Object.assign(process.env, { DYNAMODB_ENDPOINT: endpoint, ...tableEnvironment(names) });
    process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
    process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';

    await apiKeyRepository().put(recordFor(key.apiKey, 'local'));

    const handlers = Object.fromEntries(
      await Promise.all(
        ROUTES.map(async (route) => [route.operationId, await importHandler<ProxyHandler>(route.entry)]),
      ),
    ) as Record<Route['operationId'], ProxyHandler>;
    const gateway = await startLocalGateway({
      handlers,
      authorizer: await importHandler<TokenAuthorizer>(AUTHORIZER_ENTRY),
      port: options.port ?? 3000,
      ...(options.log ? { log: options.log } : {}),
      staticRoutes: await reference,
    });
    return {
      gateway,
      ...key,
      dynamoDbEndpoint: endpoint,
      dynamoDbLocal,
      stop: async () => {
        await gateway.close();
        await dynamoDbLocal?.stop();
      },
    };
  } catch (error) {
    await dynamoDbLocal?.stop();
    throw error;
  }
};
