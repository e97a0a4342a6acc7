import { resolve } from 'node:path';
import { ConfigError, ENV, isLogLevel, LOG_LEVELS, type LogLevel, readAllowedOrigins } from '#shared/config';
import { type AllowedOrigins, ANY_ORIGIN } from '#shared/http/cors';
import { JavaMissingError } from '#tools/local/dynamodb-local';
import { LocalConfigError, type LocalStack, startLocalStack } from '#tools/local/local-stack';
import { referenceRoutes } from '#tools/openapi/reference';

/**
 * `npm start`: the API on http://127.0.0.1:$PORT/v1 in front of an embedded DynamoDB Local.
 *
 *   PORT                 port of the API (default 3000)
 *   PETSTORE_DATA_DIR    database and generated key (default ./.data)
 *   PETSTORE_API_KEY     the key to accept (default: generated once, kept in the data dir)
 *   DYNAMODB_ENDPOINT    use this DynamoDB instead of starting DynamoDB Local
 *   POWERTOOLS_LOG_LEVEL the functions' log level (default WARN)
 *   PETSTORE_CORS_ORIGINS web origins allowed to call it from a browser, comma-separated
 *                        (default: any origin, so a web client's dev server just works)
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const env = (name: string): string | undefined => process.env[name]?.trim() || undefined;

const port = (): number => {
  const value = env(ENV.local.port) ?? '3000';
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > 65_535)
    throw new LocalConfigError(`${ENV.local.port} must be a port number, not "${value}"`);
  return parsed;
};

const logLevel = (): LogLevel | undefined => {
  const value = env(ENV.logLevel)?.toUpperCase();
  if (value !== undefined && !isLogLevel(value))
    throw new LocalConfigError(`${ENV.logLevel} must be one of ${LOG_LEVELS.join(', ')}, not "${value}"`);
  return value;
};

/** Any origin unless PETSTORE_CORS_ORIGINS lists some (a development server is open by default). */
const corsOrigins = (): AllowedOrigins => {
  const value = env(ENV.corsOrigins);
  if (value === undefined) return [ANY_ORIGIN];
  try {
    return readAllowedOrigins(ENV.corsOrigins, value);
  } catch (error) {
    if (error instanceof ConfigError) throw new LocalConfigError(error.message);
    throw error;
  }
};

const main = async (): Promise<void> => {
  const dataDir = resolve(env(ENV.local.dataDir) ?? '.data');
  const apiKey = env(ENV.local.apiKey);
  const dynamoDbEndpoint = env(ENV.dynamoDbEndpoint);
  const functionsLogLevel = logLevel();
  const origins = corsOrigins();
  const stack: LocalStack = await startLocalStack({
    dataDir,
    port: port(),
    ...(apiKey ? { apiKey } : {}),
    ...(dynamoDbEndpoint ? { dynamoDbEndpoint } : {}),
    ...(functionsLogLevel ? { logLevel: functionsLogLevel } : {}),
    corsOrigins: origins,
    staticRoutes: referenceRoutes(),
    log: (line) => console.log(`${new Date().toISOString()} ${line}`),
  });

  const database = stack.dynamoDbLocal
    ? `DynamoDB Local at ${stack.dynamoDbEndpoint}, data in ${resolve(dataDir, 'dynamodb')}`
    : `DynamoDB at ${stack.dynamoDbEndpoint} (DYNAMODB_ENDPOINT)`;
  const keySource = {
    PETSTORE_API_KEY: 'from PETSTORE_API_KEY',
    generated: `generated, kept in ${resolve(dataDir, 'api-key')}`,
    'data dir': `from ${resolve(dataDir, 'api-key')}`,
  }[stack.apiKeySource];
  console.log(
    [
      `Pet store API listening on ${stack.gateway.baseUrl}`,
      `API key (${keySource}): ${stack.apiKey}`,
      `Database: ${database}`,
      `Browsers: ${origins.includes(ANY_ORIGIN) ? `any origin may call it (set ${ENV.corsOrigins} to list some)` : `pages of ${origins.join(', ')} may call it`}`,
      `Try: curl -H "Authorization: Bearer ${stack.apiKey}" ${stack.gateway.baseUrl}/pets`,
      `API reference: ${new URL('/docs', stack.gateway.baseUrl).href} (document: /openapi.yaml, /openapi.json)`,
      'Stop with Ctrl+C.',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${reason}: stopping`);
    stack.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Stopped with an error:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // npm does not pass a SIGTERM sent to it on to this process: when the process that started us
  // is gone, stop too, rather than leave this server and its Java process running as orphans.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown('parent process exited');
  }, 1_000).unref();
};

main().catch((error: unknown) => {
  const known = error instanceof JavaMissingError || error instanceof LocalConfigError;
  console.error(known ? `Cannot start: ${(error as Error).message}` : error);
  process.exit(1);
});
