import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LOCAL_PLANS } from '#infra/stage-plans';
import { type AllowedOrigins, ANY_ORIGIN } from '#shared/allowed-origins';
import { generateApiKey, parseBearerToken } from '#shared/auth/api-key';
import {
  ConfigError,
  ENV,
  type Env,
  type LogLevel,
  optionalEnv,
  readAllowedOrigins,
  readLogLevel,
} from '#shared/config';
import { isPlanName, planNames } from '#shared/fair-use/plans';
import { LocalConfigError } from '#tools/local/local-config-error';

/**
 * The settings of `npm start` and `npm run dev`, read from the environment and checked at once: a
 * bad value is a LocalConfigError naming the variable to change.
 */

/** The launcher of DynamoDB Local: on its command line, which is how the project's are recognised. */
export const DYNAMODB_LOCAL_LAUNCHER = 'LoopbackDynamoDbLocal.java';

/** Where the local server listens: loopback only. */
export const LOCAL_HOST = '127.0.0.1';

/** What npm start keeps in its data directory: DynamoDB Local's files, the key, the lock. */
export const localDataPaths = (dataDir: string) => ({
  dynamoDb: join(dataDir, 'dynamodb'),
  apiKey: join(dataDir, 'api-key'),
  lock: join(dataDir, 'server.lock'),
});

export { LocalConfigError } from '#tools/local/local-config-error';

export interface LocalSettings {
  readonly dataDir: string;
  readonly port: number;
  readonly apiKey?: string;
  /** The local key's plan: one of the local plans (staging's, and `local`). */
  readonly apiKeyPlan?: string;
  readonly dynamoDbEndpoint?: string;
  readonly logLevel?: LogLevel;
  /** Web origins whose pages may call the API (CORS). */
  readonly corsOrigins: AllowedOrigins;
}

const port = (env: Env): number => {
  const text = optionalEnv(ENV.local.port, env) ?? '3000';
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

/** The one sentence that says a local plan name is not one. */
export const unknownLocalPlan = (plan: string): string =>
  `${ENV.local.apiKeyPlan} must be one of the local plans (${planNames(LOCAL_PLANS).join(', ')}), not "${plan}"`;

/** The local key's plan, when PETSTORE_API_KEY_PLAN names one of the local plans. */
const apiKeyPlan = (env: Env): string | undefined => {
  const plan = optionalEnv(ENV.local.apiKeyPlan, env);
  if (plan !== undefined && !isPlanName(LOCAL_PLANS, plan))
    throw new LocalConfigError(unknownLocalPlan(plan));
  return plan;
};

/**
 * Why `key` cannot be the local key, or undefined: it must be a token the authorizer reads from
 * `Authorization: Bearer <key>` as it is (shared/auth/api-key.ts), with nothing dropped around it.
 */
export const apiKeyProblem = (key: string, source: string): string | undefined =>
  parseBearerToken(`Bearer ${key}`) === key
    ? undefined
    : `${source} must be a token of letters, digits and -._~+/ characters (a bearer token the authorizer accepts, like the psk_… keys npm start generates)`;

/** `key`, when the authorizer would accept it; else a LocalConfigError. */
const checkedKey = <K extends string | undefined>(key: K, source: string = ENV.local.apiKey): K => {
  const problem = key === undefined ? undefined : apiKeyProblem(key, source);
  if (problem) throw new LocalConfigError(problem);
  return key;
};

/** The key the local server accepts, and where it comes from. */
export interface LocalApiKey {
  readonly apiKey: string;
  readonly apiKeySource: 'PETSTORE_API_KEY' | 'generated' | 'data dir';
}

/**
 * The local key: `apiKey` (PETSTORE_API_KEY), else the one kept in the data directory, else a new
 * one, generated and kept there (readable by its owner only). A kept key that the authorizer would
 * not accept is a LocalConfigError naming its file.
 */
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

/** The data directory PETSTORE_DATA_DIR names (default `./.data`), resolved against `cwd`. */
export const localDataDir = (env: Env, cwd = process.cwd()): string =>
  resolve(cwd, optionalEnv(ENV.local.dataDir, env) ?? '.data');

/** Every setting, checked; relative paths resolved against `cwd`. */
export const readLocalSettings = (env: Env, cwd = process.cwd()): LocalSettings => {
  const key = checkedKey(optionalEnv(ENV.local.apiKey, env));
  const plan = apiKeyPlan(env);
  const dynamoDbEndpoint = endpoint(env);
  const level = shared(() => readLogLevel(env));
  return {
    dataDir: localDataDir(env, cwd),
    port: port(env),
    ...(key ? { apiKey: key } : {}),
    ...(plan ? { apiKeyPlan: plan } : {}),
    ...(dynamoDbEndpoint ? { dynamoDbEndpoint } : {}),
    ...(level ? { logLevel: level } : {}),
    corsOrigins: corsOrigins(env),
  };
};
