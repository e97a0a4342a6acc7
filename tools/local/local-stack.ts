import { authorizerFunction } from '#functions/authorizer';
import { buildOperationHandlers, SCOPE_RESOURCES } from '#functions/operations';
import { LOCAL_KEY_PLAN, LOCAL_PLANS } from '#infra/stage-plans';
import { createLocalClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { ensureTables, type TableNames, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { type ApiKeyRecord, recordFor } from '#shared/auth/api-key';
import type { FunctionConfig, LogLevel } from '#shared/config';
import { isPlanName } from '#shared/fair-use/plans';
import type { ProxyHandler, TokenAuthorizerHandler } from '#shared/lambda';
import { type DataDirLock, lockDataDir } from '#tools/local/data-dir-lock';
import { type SupervisedDynamoDbLocal, superviseDynamoDbLocal } from '#tools/local/dynamodb-local';
import { FairUse } from '#tools/local/fair-use';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import { type LocalPetEvents, startLocalPetEvents } from '#tools/local/pet-events';
import {
  LOCAL_HOST as HOST,
  LOCAL_TABLE_PREFIX,
  type LocalApiKey,
  LocalConfigError,
  localApiKey,
  localCachePaths,
  localDataPaths,
  unknownLocalPlan,
} from '#tools/local/settings';
import { assertSettingsUsable, listenError } from '#tools/local/startup-checks';
import type { StaticRoutes } from '#tools/local/static-files';

export interface LocalFunctions {
  readonly handlers: Readonly<Record<string, ProxyHandler>>;
  readonly authorizer: TokenAuthorizerHandler;
}

/**
 * Every function configured as in Lambda (the authorizer with the plans and the scopes' methods the stack
 * gives it), but for DynamoDB at `endpoint` and without metrics (no CloudWatch).
 */
export const localFunctions = ({
  endpoint,
  plans = LOCAL_PLANS,
  ...config
}: Pick<FunctionConfig, 'logLevel' | 'corsOrigins' | 'plans'> & {
  readonly endpoint: string;
  readonly tables: TableNames;
}): LocalFunctions => {
  const functionConfig: FunctionConfig = {
    ...config,
    dynamoDb: { endpoint },
    metrics: false,
    plans,
    scopes: SCOPE_RESOURCES,
  };
  return {
    handlers: buildOperationHandlers(functionConfig),
    authorizer: authorizerFunction.build(functionConfig),
  };
};

export interface LocalStackOptions {
  readonly dataDir: string;
  /** What is made once and reused (the compiled DynamoDB Local launcher here). @default DEFAULT_CACHE_DIR */
  readonly cacheDir?: string;
  /** @default 3000 */
  readonly port?: number;
  /** @default generated once and kept in `dataDir` */
  readonly apiKey?: string;
  /** @default DynamoDB Local, started here */
  readonly dynamoDbEndpoint?: string;
  /** @default 'WARN' */
  readonly logLevel?: LogLevel;
  readonly staticRoutes?: StaticRoutes | Promise<StaticRoutes>;
  /** @default none */
  readonly corsOrigins?: AllowedOrigins;
  /** The local key's plan when its record is made here (a stored one keeps its own). @default LOCAL_KEY_PLAN */
  readonly apiKeyPlan?: string;
  /** URLs each event is POSTed to. @default none */
  readonly eventTargets?: readonly string[];
  readonly log?: (line: string) => void;
  /** DynamoDB Local could not be kept running: the server should stop, saying why. */
  readonly onFatal?: (message: string) => void;
}

export interface LocalStack extends LocalApiKey {
  readonly gateway: LocalGateway;
  readonly apiKeyId: string;
  readonly apiKeyRevokedAt?: string;
  readonly apiKeyPlan: string;
  readonly dynamoDbEndpoint: string;
  readonly tables: TableNames;
  /** Set when this stack started DynamoDB Local itself (and keeps it running). */
  readonly dynamoDbLocal: SupervisedDynamoDbLocal | undefined;
  /** The pets' events: where they are written, and the URLs they are POSTed to. */
  readonly events: LocalPetEvents;
  stop(): Promise<void>;
}

/** The tables and the key record, created where missing; a stored record is never rewritten. */
const prepareData = async (
  endpoint: string,
  tables: TableNames,
  apiKey: string,
  plan: string,
): Promise<ApiKeyRecord> => {
  // A set-up client, without the functions' 1 s request timeout: a JVM still warming up on a busy
  // machine may take longer to answer its first calls, and start-up should wait for it, not fail.
  const admin = createLocalClient(endpoint);
  try {
    await ensureTables(admin, tables);
    const keys = new DynamoDbApiKeyRepository({
      client: documentClientOf(admin),
      apiKeysTable: tables.apiKeys,
    });
    return await keys.putIfAbsent({ ...recordFor(apiKey, 'local'), plan });
  } finally {
    admin.destroy();
  }
};

const startGateway = (options: LocalStackOptions, endpoint: string, tables: TableNames, port: number) => {
  const corsOrigins = options.corsOrigins ?? [];
  return startLocalGateway({
    ...localFunctions({ endpoint, tables, logLevel: options.logLevel ?? 'WARN', corsOrigins }),
    corsOrigins,
    // Every key's plan enforced as in AWS: the local key's, and any made with npm run keys.
    fairUse: new FairUse(LOCAL_PLANS),
    port,
    host: HOST,
    log: options.log,
    staticRoutes: options.staticRoutes,
  }).catch((error: unknown) => {
    throw listenError(error, port, HOST); // taken since the check above
  });
};

const startDynamoDbLocal = (
  options: LocalStackOptions,
  lock: DataDirLock,
  prepare: (endpoint: string) => Promise<unknown>,
  apiPort: number,
): Promise<SupervisedDynamoDbLocal> => {
  const log = options.log ?? (() => undefined);
  return superviseDynamoDbLocal({
    dataDir: localDataPaths(options.dataDir).dynamoDb,
    avoidPort: apiPort,
    launcherCache: localCachePaths(options.cacheDir).launcher,
    onStart: (pid) => lock.update(pid === undefined ? {} : { dynamoDbPid: pid }),
    onRestart: prepare,
    onGiveUp: (message) => (options.onFatal ?? log)(message),
    log,
  });
};

/** `npm start`: DynamoDB Local (unless an endpoint is given), tables, key, gateway; bad settings fail first. */
export const startLocalStack = async (options: LocalStackOptions): Promise<LocalStack> => {
  const port = options.port ?? 3000;
  const log = options.log ?? (() => undefined);
  await assertSettingsUsable({ ...options, port, host: HOST });
  const key = localApiKey(options);
  const apiKeyPlan = options.apiKeyPlan ?? LOCAL_KEY_PLAN;
  if (!isPlanName(LOCAL_PLANS, apiKeyPlan)) throw new LocalConfigError(unknownLocalPlan(apiKeyPlan));

  const tables = tableNamesFor(LOCAL_TABLE_PREFIX);
  const prepare = (endpoint: string) => prepareData(endpoint, tables, key.apiKey, apiKeyPlan);
  // One server per data directory's DynamoDB Local; a DynamoDB given (DYNAMODB_ENDPOINT) is no one's.
  const lock = options.dynamoDbEndpoint
    ? undefined
    : await lockDataDir({
        dataDir: options.dataDir,
        port,
        apiKey: key.apiKey,
        corsOrigins: options.corsOrigins ?? [],
        log,
      });
  let dynamoDbLocal: SupervisedDynamoDbLocal | undefined;
  let gateway: LocalGateway | undefined;
  try {
    dynamoDbLocal = lock ? await startDynamoDbLocal(options, lock, prepare, port) : undefined;
    const endpoint = options.dynamoDbEndpoint ?? (dynamoDbLocal as SupervisedDynamoDbLocal).endpoint;
    const stored = await prepare(endpoint);
    gateway = await startGateway(options, endpoint, tables, port);
    const events = await startLocalPetEvents({
      endpoint,
      petsTable: tables.pets,
      dataDir: options.dataDir,
      targets: options.eventTargets ?? [],
      logLevel: options.logLevel ?? 'WARN',
      log,
    });
    // Where `npm run keys -- … --local` finds the keys.
    lock?.update({ port: gateway.port, dynamoDb: { endpoint, apiKeysTable: tables.apiKeys } });
    const running = dynamoDbLocal;
    const serving = gateway;
    return {
      gateway: serving,
      ...key,
      apiKeyId: stored.keyId,
      ...(stored.revokedAt ? { apiKeyRevokedAt: stored.revokedAt } : {}),
      apiKeyPlan: stored.plan ?? LOCAL_PLANS.defaultPlan,
      dynamoDbEndpoint: endpoint,
      tables,
      dynamoDbLocal: running,
      events,
      stop: async () => {
        await serving.close();
        // After the last write, before DynamoDB Local goes: the batch in hand is published and kept.
        await events.stop();
        await running?.stop();
        lock?.release();
      },
    };
  } catch (error) {
    await gateway?.close();
    await dynamoDbLocal?.stop();
    lock?.release();
    throw error;
  }
};
