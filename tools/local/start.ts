import { ANY_ORIGIN } from '#shared/allowed-origins';
import { ENV } from '#shared/config';
import type { LocalStack } from '#tools/local/local-stack';
import { LOCAL_HOST, LocalConfigError, localDataPaths, readLocalSettings } from '#tools/local/settings';
import { assertSettingsUsable } from '#tools/local/startup-checks';

/**
 * `npm start`: the API on http://127.0.0.1:$PORT/v1 in front of an embedded DynamoDB Local.
 * Settings: tools/local/settings.ts. A setting that cannot work ends it at once, with one line
 * naming the variable to change; so does losing DynamoDB Local for good.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);

/** One line, never a stack trace: what went wrong, and for a setting, which one to change. */
const fail = (error: unknown): never => {
  const known = error instanceof LocalConfigError;
  const message = error instanceof Error ? error.message : String(error);
  console.error(`Cannot start: ${known ? message : message.split('\n')[0]}`);
  if (!known && process.env[ENV.logLevel]?.toUpperCase() === 'DEBUG') console.error(error);
  process.exit(1);
};

const main = async (): Promise<void> => {
  // Settings first, before the service's modules load: a bad one is reported in well under a second.
  const settings = readLocalSettings(process.env);
  await assertSettingsUsable({ ...settings, host: LOCAL_HOST });
  const [{ startLocalStack }, { referenceRoutes }] = await Promise.all([
    import('#tools/local/local-stack'),
    import('#tools/openapi/reference'),
  ]);

  let stopping = false;
  let stack: LocalStack | undefined;
  const shutdown = (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    (code === 0 ? console.log : console.error)(`${reason}: stopping`);
    (stack?.stop() ?? Promise.resolve()).then(
      () => process.exit(code),
      (error: unknown) => {
        console.error(`Stopped with an error: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };

  // Before anything starts: a signal during start-up still stops DynamoDB Local (the exit hook).
  process.on('SIGINT', (signal) => shutdown(signal));
  process.on('SIGTERM', (signal) => shutdown(signal));

  stack = await startLocalStack({
    ...settings,
    staticRoutes: referenceRoutes(),
    log,
    onFatal: (message) => shutdown(message, 1),
  });

  const paths = localDataPaths(settings.dataDir);
  const database = stack.dynamoDbLocal
    ? `DynamoDB Local at ${stack.dynamoDbEndpoint}, data in ${paths.dynamoDb}`
    : `DynamoDB at ${stack.dynamoDbEndpoint} (DYNAMODB_ENDPOINT)`;
  const keySource = {
    PETSTORE_API_KEY: 'from PETSTORE_API_KEY',
    generated: `generated, kept in ${paths.apiKey}`,
    'data dir': `from ${paths.apiKey}`,
  }[stack.apiKeySource];
  console.log(
    [
      `Pet store API listening on ${stack.gateway.baseUrl}`,
      `API key (${keySource}): ${stack.apiKey}`,
      `Database: ${database}`,
      `Browsers: ${settings.corsOrigins.includes(ANY_ORIGIN) ? `any origin may call it (set ${ENV.corsOrigins} to list some)` : `pages of ${settings.corsOrigins.join(', ')} may call it`}`,
      `Try: curl -H "Authorization: Bearer ${stack.apiKey}" ${stack.gateway.baseUrl}/pets`,
      `API reference: ${new URL('/docs', stack.gateway.baseUrl).href} (document: /openapi.yaml, /openapi.json)`,
      'Stop with Ctrl+C.',
    ].join('\n'),
  );

  // npm does not pass a SIGTERM sent to it on to this process: when the process that started us
  // is gone, stop too, rather than leave this server and its Java process running as orphans.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown('parent process exited');
  }, 1_000).unref();
};

main().catch(fail);
