import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDocumentClient, createLocalClient } from '#shared/adapters/dynamodb/client';
import { ensureTables, type TableNames, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { generateApiKey, parseBearerToken, recordFor } from '#shared/auth/api-key';
import { authorizerRoot } from '#shared/composition/authorizer';
import { createPetRoot } from '#shared/composition/create-pet';
import { getPetRoot } from '#shared/composition/get-pet';
import { listPetsRoot } from '#shared/composition/list-pets';
import type { FunctionConfig, LogLevel } from '#shared/config';
import type { AllowedOrigins } from '#shared/http/cors';
import type { ProxyHandler, TokenAuthorizerHandler } from '#shared/lambda';
import type { OperationId } from '#shared/operations/routes';
import { type DynamoDbLocal, startDynamoDbLocal } from '#tools/local/dynamodb-local';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import type { StaticRoutes } from '#tools/local/static-files';

/** Table names of the local server: `petstore-local-pets`, … */
export const LOCAL_TABLE_PREFIX = 'petstore-local';

/** The functions as the local gateway calls them, each built by its own composition root. */
export interface LocalFunctions {
  readonly handlers: Readonly<Record<OperationId, ProxyHandler>>;
  readonly authorizer: TokenAuthorizerHandler;
}

/**
 * Every function, configured as the stack configures it in Lambda but for DynamoDB at
 * `endpoint` and the given tables; no metrics (there is no CloudWatch to read them).
 */
export const localFunctions = (options: {
  readonly endpoint: string;
  readonly tables: TableNames;
  readonly logLevel?: LogLevel;
  /** What the stack would set from the stage's `allowedOrigins`. @default none */
  readonly corsOrigins?: AllowedOrigins;
}): LocalFunctions => {
  const config: FunctionConfig = {
    tables: options.tables,
    dynamoDb: { endpoint: options.endpoint },
    metrics: false,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
  };
  return {
    handlers: {
      listPets: listPetsRoot.build(config),
      createPet: createPetRoot.build(config),
      getPet: getPetRoot.build(config),
    },
    authorizer: authorizerRoot.build(config),
  };
};

export interface LocalStackOptions {
  /** Where the database and the generated key live. */
  readonly dataDir: string;
  /** @default 3000 */
  readonly port?: number;
  /** The key to accept; generated once and kept in `dataDir` when omitted. */
  readonly apiKey?: string;
  /** An already running DynamoDB; DynamoDB Local is started when omitted. */
  readonly dynamoDbEndpoint?: string;
  /** The functions' log level. @default 'WARN' */
  readonly logLevel?: LogLevel;
  /** Pages served beside the API (the reference). @default {} */
  readonly staticRoutes?: StaticRoutes | Promise<StaticRoutes>;
  /** Web origins whose pages may call the API (CORS), for the gateway and the functions alike. @default none */
  readonly corsOrigins?: AllowedOrigins;
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

/**
 * Everything `npm start` runs: DynamoDB Local (unless an endpoint is given), the tables, the
 * local key, and the gateway in front of the real functions, each built by its composition root.
 */
export const startLocalStack = async (options: LocalStackOptions): Promise<LocalStack> => {
  mkdirSync(options.dataDir, { recursive: true });
  const key = localKey(options);
  const dynamoDbLocal = options.dynamoDbEndpoint
    ? undefined
    : await startDynamoDbLocal({ dataDir: join(options.dataDir, 'dynamodb') });
  try {
    const endpoint = options.dynamoDbEndpoint ?? (dynamoDbLocal as DynamoDbLocal).endpoint;
    const tables = tableNamesFor(LOCAL_TABLE_PREFIX);
    const admin = createLocalClient(endpoint);
    try {
      await ensureTables(admin, tables);
    } finally {
      admin.destroy();
    }
    const keys = new DynamoDbApiKeyRepository({
      client: createDocumentClient({ endpoint }),
      apiKeysTable: tables.apiKeys,
    });
    await keys.put(recordFor(key.apiKey, 'local'));

    const corsOrigins = options.corsOrigins ?? [];
    const gateway = await startLocalGateway({
      ...localFunctions({ endpoint, tables, logLevel: options.logLevel ?? 'WARN', corsOrigins }),
      corsOrigins,
      port: options.port ?? 3000,
      ...(options.log ? { log: options.log } : {}),
      staticRoutes: await options.staticRoutes,
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
