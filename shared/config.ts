import type { DataGrants } from '#shared/adapters/dynamodb/access';
import { type AllowedOrigins, CorsConfigError, parseAllowedOrigins } from '#shared/allowed-origins';
import { checkScopeResources, type ScopeResources, ScopeResourcesError } from '#shared/auth/scopes';
import { checkPlans, type Plans, PlansError } from '#shared/fair-use/plans';

/** The one module that reads `process.env`, at cold start: a missing variable fails then, not later. */

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Readonly<Record<string, string | undefined>>;

/** The tables the service keeps: each has its variable here and its design in table-design.ts. */
export type TableKey = 'pets' | 'counters' | 'apiKeys' | 'idempotency';

export const ENV = {
  /** The table of each TableKey, set by the stack for exactly the tables a function uses. */
  tables: {
    pets: 'PETS_TABLE_NAME',
    counters: 'COUNTERS_TABLE_NAME',
    apiKeys: 'API_KEYS_TABLE_NAME',
    idempotency: 'IDEMPOTENCY_TABLE_NAME',
  } satisfies Record<TableKey, string>,
  /** Set only outside AWS (DynamoDB Local); in Lambda the SDK finds the regional endpoint. */
  dynamoDbEndpoint: 'DYNAMODB_ENDPOINT',
  /** `staging` or `production`, set by the stack; unset locally. */
  stage: 'PETSTORE_STAGE',
  /** CORS origins, comma-separated, or `*`: set by the stack (unset: none); unset, `npm start` allows any. */
  corsOrigins: 'PETSTORE_CORS_ORIGINS',
  /** The stage's plans as JSON (shared/fair-use/plans.ts), set by the stack for the authorizer. */
  plans: 'PETSTORE_PLANS',
  /** The stage's event bus, set by the stack for the events publisher. */
  eventBus: 'PETSTORE_EVENT_BUS_NAME',
  /** Each scope's method resources as JSON (shared/auth/scopes.ts), set by the stack for the authorizer. */
  scopes: 'PETSTORE_SCOPES',
  /** Set by the local gateway, whose invocations overlap: Powertools then keeps keys per invocation. */
  lambdaMaxConcurrency: 'AWS_LAMBDA_MAX_CONCURRENCY',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** The local server (`npm start`). */
  local: {
    port: 'PORT',
    dataDir: 'PETSTORE_DATA_DIR',
    apiKey: 'PETSTORE_API_KEY',
    /** The plan of the local key (`local` when unset). */
    apiKeyPlan: 'PETSTORE_API_KEY_PLAN',
    /** What npm start makes once and reuses: the compiled DynamoDB Local launcher, the rendered reference. */
    cacheDir: 'PETSTORE_CACHE_DIR',
    /** URLs npm start POSTs each event to, comma-separated, as an API destination would. */
    eventTargets: 'PETSTORE_EVENT_TARGETS',
  },
  /** `npm run smoke` against a deployed stage (its flags --url, --key, --origin win). */
  smoke: {
    baseUrl: 'BASE_URL',
    apiKey: 'API_KEY',
    origin: 'SMOKE_ORIGIN',
    /** A key of its own the throttling check may spend (best on a small plan). */
    throttleKey: 'SMOKE_THROTTLE_KEY',
  },
  /** The browser tests' Chromium, when it is not where Debian's chromium-headless-shell puts it. */
  chromiumPath: 'CHROMIUM_PATH',
} as const;

/**
 * What `npm start` (and `npm run dev`) reads, each variable with what it means; its usage
 * (`npm start -- --help`) lists them with their defaults (tools/local/settings.ts), and
 * docs/development.md's Configuration table names each.
 */
export const LOCAL_SETTINGS = {
  [ENV.local.port]: 'port of the local API, on 127.0.0.1 only',
  [ENV.local.dataDir]: 'where the data (dynamodb/), the generated API key (api-key) and the lock are kept',
  [ENV.local.apiKey]:
    'the API key the local API accepts, instead of the one generated into the data directory',
  [ENV.local.apiKeyPlan]:
    'the plan of that key when npm start creates its record: local, or one of staging’s',
  [ENV.corsOrigins]: 'web origins allowed to call the API from a browser, comma-separated, or *',
  [ENV.dynamoDbEndpoint]: 'a DynamoDB of your own to use instead of the embedded DynamoDB Local',
  [ENV.logLevel]: 'level of the functions’ JSON logs: DEBUG, INFO, WARN, ERROR or SILENT',
  [ENV.local.cacheDir]: 'what a start makes once and later starts reuse (only ever a cache)',
  [ENV.local.eventTargets]:
    'http(s) URLs that each get every pet event POSTed, as an API destination would, comma-separated',
} as const;

export const optionalEnv = (name: string, env: Env): string | undefined => env[name]?.trim() || undefined;

const requireEnv = (name: string, env: Env): string => {
  const value = optionalEnv(name, env);
  if (!value) throw new ConfigError(`Environment variable ${name} must be set`);
  return value;
};

export interface DynamoDbConfig {
  /** Set only outside AWS (DynamoDB Local); in Lambda the SDK finds the regional endpoint. */
  readonly endpoint?: string;
  /** The calls the client may make, set with `endpoint` (DynamoDB Local has no IAM); unset in Lambda. */
  readonly grants?: DataGrants;
}

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const isLogLevel = (value: string): value is LogLevel => (LOG_LEVELS as readonly string[]).includes(value);

/** POWERTOOLS_LOG_LEVEL, in any case; unset is undefined, anything else a ConfigError naming it. */
export const readLogLevel = (env: Env): LogLevel | undefined => {
  const text = optionalEnv(ENV.logLevel, env)?.toUpperCase();
  if (text !== undefined && !isLogLevel(text))
    throw new ConfigError(`${ENV.logLevel} must be one of ${LOG_LEVELS.join(', ')}, not "${text}"`);
  return text;
};

export interface FunctionConfig {
  readonly tables: Readonly<Partial<Record<TableKey, string>>>;
  readonly dynamoDb: DynamoDbConfig;
  /** Tags metrics, so stages sharing an account keep apart; unset locally. */
  readonly stage?: string;
  /** @default Powertools' own: INFO */
  readonly logLevel?: LogLevel;
  /** Publish EMF metrics to stdout (CloudWatch reads them in Lambda). */
  readonly metrics: boolean;
  /** Web origins whose pages may read the answers (CORS). @default none */
  readonly corsOrigins?: AllowedOrigins;
  /** The stage's plans: required by the authorizer, which names each caller's plan. */
  readonly plans?: Plans;
  /** The stage's event bus: required by the events publisher. */
  readonly eventBusName?: string;
  /** Each scope's methods: required by the authorizer, which allows a key the methods of its scopes. */
  readonly scopes?: ScopeResources;
}

export const readAllowedOrigins = (name: string, value: string): AllowedOrigins => {
  try {
    return parseAllowedOrigins(value);
  } catch (error) {
    if (error instanceof CorsConfigError) throw new ConfigError(`${name}: ${error.message}`);
    throw error;
  }
};

export const readPlans = (name: string, value: string): Plans => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError(`${name} must be the plans as JSON, not "${value.slice(0, 40)}"`);
  }
  try {
    return checkPlans(parsed);
  } catch (error) {
    if (error instanceof PlansError) throw new ConfigError(`${name}: ${error.message}`);
    throw error;
  }
};

export const requirePlans = (config: Pick<FunctionConfig, 'plans'>): Plans => {
  if (!config.plans) throw new ConfigError(`Environment variable ${ENV.plans} must be set`);
  return config.plans;
};

export const requireEventBus = (config: Pick<FunctionConfig, 'eventBusName'>): string => {
  if (!config.eventBusName) throw new ConfigError(`Environment variable ${ENV.eventBus} must be set`);
  return config.eventBusName;
};

export const readScopeResources = (name: string, value: string): ScopeResources => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError(`${name} must be the scopes' methods as JSON, not "${value.slice(0, 40)}"`);
  }
  try {
    return checkScopeResources(parsed);
  } catch (error) {
    if (error instanceof ScopeResourcesError) throw new ConfigError(`${name}: ${error.message}`);
    throw error;
  }
};

export const requireScopes = (config: Pick<FunctionConfig, 'scopes'>): ScopeResources => {
  if (!config.scopes) throw new ConfigError(`Environment variable ${ENV.scopes} must be set`);
  return config.scopes;
};

/** A function's configuration from its environment: the variables of `tables` are required. */
export const readFunctionConfig = (tables: readonly TableKey[], env: Env = process.env): FunctionConfig => {
  const endpoint = optionalEnv(ENV.dynamoDbEndpoint, env);
  const stage = optionalEnv(ENV.stage, env);
  const origins = optionalEnv(ENV.corsOrigins, env);
  const plans = optionalEnv(ENV.plans, env);
  const eventBusName = optionalEnv(ENV.eventBus, env);
  const scopes = optionalEnv(ENV.scopes, env);
  const logLevel = readLogLevel(env);
  return {
    tables: Object.fromEntries(tables.map((table) => [table, requireEnv(ENV.tables[table], env)])),
    dynamoDb: endpoint ? { endpoint } : {},
    ...(stage ? { stage } : {}),
    ...(logLevel ? { logLevel } : {}),
    metrics: true,
    ...(origins ? { corsOrigins: readAllowedOrigins(ENV.corsOrigins, origins) } : {}),
    ...(plans ? { plans: readPlans(ENV.plans, plans) } : {}),
    ...(eventBusName ? { eventBusName } : {}),
    ...(scopes ? { scopes: readScopeResources(ENV.scopes, scopes) } : {}),
  };
};

export const tableName = (config: Pick<FunctionConfig, 'tables'>, table: TableKey): string => {
  const name = config.tables[table];
  if (!name) throw new ConfigError(`Environment variable ${ENV.tables[table]} must be set`);
  return name;
};
