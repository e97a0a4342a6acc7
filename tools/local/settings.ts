import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { LOCAL_KEY_PLAN, LOCAL_PLANS } from '#infra/stage-plans';
import { type AllowedOrigins, ANY_ORIGIN } from '#shared/allowed-origins';
import { generateApiKey, parseBearerToken } from '#shared/auth/api-key';
import {
  ConfigError,
  ENV,
  type Env,
  LOCAL_SETTINGS,
  type LogLevel,
  optionalEnv,
  readAllowedOrigins,
  readLogLevel,
} from '#shared/config';
import { isPlanName, planNames } from '#shared/fair-use/plans';
import { LocalConfigError } from '#tools/local/local-config-error';

/**
 * The launcher of DynamoDB Local, its source file or, once compiled, its class: one of them is on
 * the command line, which is how the project's are recognised.
 */
export const DYNAMODB_LOCAL_LAUNCHER = 'LoopbackDynamoDbLocal.java';
export const DYNAMODB_LOCAL_LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';

export const LOCAL_HOST = '127.0.0.1';

/** Table names of the local server: `petstore-local-pets`, … */
export const LOCAL_TABLE_PREFIX = 'petstore-local';

export const localDataPaths = (dataDir: string) => ({
  dynamoDb: join(dataDir, 'dynamodb'),
  apiKey: join(dataDir, 'api-key'),
  lock: join(dataDir, 'server.lock'),
  /** Every event, one JSON line each, as EventBridge delivers it to a target. */
  events: join(dataDir, 'events.ndjson'),
  /** How far the publisher has read the pets table's stream: where a restart resumes. */
  eventsStream: join(dataDir, 'events-stream.json'),
  /** How far each URL of PETSTORE_EVENT_TARGETS has received events.ndjson. */
  eventTargets: join(dataDir, 'events-targets.json'),
  /** The event source mapping's on-failure destination: batches given up on, as Lambda describes them. */
  eventFailures: join(dataDir, 'events-failures.ndjson'),
});

export { LocalConfigError } from '#tools/local/local-config-error';

export interface LocalSettings {
  readonly dataDir: string;
  /** What is made once and reused (`launcher/`, `reference/`); only ever a cache: deleting it costs a start. */
  readonly cacheDir: string;
  readonly port: number;
  readonly apiKey?: string;
  readonly apiKeyPlan?: string;
  readonly dynamoDbEndpoint?: string;
  readonly logLevel?: LogLevel;
  readonly corsOrigins: AllowedOrigins;
  /** Where each event is POSTed, as an API destination would. @default none */
  readonly eventTargets: readonly string[];
}

const port = (env: Env): number => {
  const text = optionalEnv(ENV.local.port, env) ?? LOCAL_DEFAULTS[ENV.local.port];
  const parsed = Number(text);
  if (!/^\d+$/.test(text) || parsed > 65_535)
    throw new LocalConfigError(`${ENV.local.port} must be a port number (0 to 65535), not "${text}"`);
  return parsed;
};

/** A setting npm start shares with the functions, its ConfigError as a LocalConfigError. */
const shared = <T>(read: () => T): T => {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigError) throw new LocalConfigError(error.message);
    throw error;
  }
};

const endpoint = (env: Env): string | undefined => {
  const text = optionalEnv(ENV.dynamoDbEndpoint, env);
  if (text === undefined) return undefined;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new LocalConfigError(
      `${ENV.dynamoDbEndpoint} must be an http(s) URL such as http://127.0.0.1:8000, not "${text}"`,
    );
  return text;
};

/** Any origin unless PETSTORE_CORS_ORIGINS lists some (a development server is open by default). */
const corsOrigins = (env: Env): AllowedOrigins => {
  const text = optionalEnv(ENV.corsOrigins, env);
  return text === undefined ? [ANY_ORIGIN] : shared(() => readAllowedOrigins(ENV.corsOrigins, text));
};

/** PETSTORE_EVENT_TARGETS: http(s) URLs, comma-separated; none when unset. */
const eventTargets = (env: Env): string[] => {
  const text = optionalEnv(ENV.local.eventTargets, env);
  const urls = (text ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  for (const url of urls) {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      throw new LocalConfigError(
        `${ENV.local.eventTargets} must be http(s) URLs, comma-separated, such as http://127.0.0.1:4000/events, not "${url}"`,
      );
  }
  return [...new Set(urls)];
};

export const unknownLocalPlan = (plan: string): string =>
  `${ENV.local.apiKeyPlan} must be one of the local plans (${planNames(LOCAL_PLANS).join(', ')}), not "${plan}"`;

const apiKeyPlan = (env: Env): string | undefined => {
  const plan = optionalEnv(ENV.local.apiKeyPlan, env);
  if (plan !== undefined && !isPlanName(LOCAL_PLANS, plan))
    throw new LocalConfigError(unknownLocalPlan(plan));
  return plan;
};

/** Why `key` cannot be the local key (a token the authorizer reads from `Bearer <key>` as it is), or undefined. */
export const apiKeyProblem = (key: string, source: string): string | undefined =>
  parseBearerToken(`Bearer ${key}`) === key
    ? undefined
    : `${source} must be a token of letters, digits and -._~+/ characters (a bearer token the authorizer accepts, like the psk_… keys npm start generates)`;

const checkedKey = <K extends string | undefined>(key: K, source: string = ENV.local.apiKey): K => {
  const problem = key === undefined ? undefined : apiKeyProblem(key, source);
  if (problem) throw new LocalConfigError(problem);
  return key;
};

export interface LocalApiKey {
  readonly apiKey: string;
  readonly apiKeySource: 'PETSTORE_API_KEY' | 'generated' | 'data dir';
}

/** The local key: `apiKey`, else the one kept in the data directory, else a new one kept there (mode 600). */
export const localApiKey = (settings: {
  readonly dataDir: string;
  readonly apiKey?: string;
}): LocalApiKey => {
  if (settings.apiKey !== undefined)
    return { apiKey: checkedKey(settings.apiKey), apiKeySource: 'PETSTORE_API_KEY' };
  const file = localDataPaths(settings.dataDir).apiKey;
  if (existsSync(file)) {
    const apiKey = readFileSync(file, 'utf8').trim();
    const problem = apiKeyProblem(apiKey, `The key in ${file}`);
    if (problem) throw new LocalConfigError(`${problem}: fix it, or delete the file for a new one`);
    return { apiKey, apiKeySource: 'data dir' };
  }
  const { key } = generateApiKey('local');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { apiKey: key, apiKeySource: 'generated' };
};

/** Beside tsc's build info, as tools keep theirs. */
export const DEFAULT_CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'petstore');

/** What each setting of LOCAL_SETTINGS is when unset. */
export const LOCAL_DEFAULTS: Readonly<Record<keyof typeof LOCAL_SETTINGS, string>> = {
  [ENV.local.port]: '3000',
  [ENV.local.dataDir]: '.data',
  [ENV.local.apiKey]: 'generated once, kept in the data directory',
  [ENV.local.apiKeyPlan]: LOCAL_KEY_PLAN,
  [ENV.corsOrigins]: 'any origin',
  [ENV.dynamoDbEndpoint]: 'DynamoDB Local, started and stopped with the server',
  [ENV.logLevel]: 'WARN',
  [ENV.local.cacheDir]: relative(PROJECT_ROOT, DEFAULT_CACHE_DIR),
  [ENV.local.eventTargets]: 'none: the events go to events.ndjson in the data directory only',
};

/** `npm start -- --help`: what it runs, and every setting it reads with its default. */
export const localUsage = (): string => {
  const width = Math.max(...Object.keys(LOCAL_SETTINGS).map((name) => name.length));
  return [
    'Usage: npm start            the API on http://127.0.0.1:$PORT/v1 on DynamoDB Local, until Ctrl+C',
    '       npm run dev          the same, restarted on every change to the code',
    'Settings, from the environment (e.g. PORT=3001 PETSTORE_DATA_DIR=/tmp/petstore npm start):',
    ...Object.entries(LOCAL_SETTINGS).map(
      ([name, meaning]) =>
        `  ${name.padEnd(width)}  ${meaning} (default: ${LOCAL_DEFAULTS[name as keyof typeof LOCAL_SETTINGS]})`,
    ),
    'More: docs/development.md, "Running it locally" and "Configuration".',
  ].join('\n');
};

/** What a cache directory holds: the compiled DynamoDB Local launcher, the rendered reference pages. */
export const localCachePaths = (cacheDir: string = DEFAULT_CACHE_DIR) => ({
  launcher: join(cacheDir, 'dynamodb-local-launcher'),
  reference: join(cacheDir, 'reference'),
});

export const localDataDir = (env: Env, cwd = process.cwd()): string =>
  resolve(cwd, optionalEnv(ENV.local.dataDir, env) ?? LOCAL_DEFAULTS[ENV.local.dataDir]);

/** Every setting of `npm start`, checked: a bad value is a LocalConfigError naming the variable. */
export const readLocalSettings = (env: Env, cwd = process.cwd()): LocalSettings => {
  return {
    // In this order: of several bad settings, the same one is reported first.
    apiKey: checkedKey(optionalEnv(ENV.local.apiKey, env)),
    apiKeyPlan: apiKeyPlan(env),
    dynamoDbEndpoint: endpoint(env),
    logLevel: shared(() => readLogLevel(env)),
    dataDir: localDataDir(env, cwd),
    cacheDir: resolve(cwd, optionalEnv(ENV.local.cacheDir, env) ?? DEFAULT_CACHE_DIR),
    port: port(env),
    corsOrigins: corsOrigins(env),
    eventTargets: eventTargets(env),
  };
};
