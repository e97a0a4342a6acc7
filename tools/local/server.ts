import { ANY_ORIGIN } from '#shared/allowed-origins';
import { ENV } from '#shared/config';
import type { LocalStack } from '#tools/local/local-stack';
import { isRunning, launchers } from '#tools/local/processes';
import {
  LOCAL_HOST,
  type LocalSettings,
  localCachePaths,
  localDataPaths,
  readLocalSettings,
} from '#tools/local/settings';
import { assertSettingsUsable } from '#tools/local/startup-checks';

const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);

/** What `npm start` prints once it serves: where, with which key and plan, and how to read its logs. */
const startBanner = (settings: LocalSettings, stack: LocalStack): string => {
  const paths = localDataPaths(settings.dataDir);
  const database = stack.dynamoDbLocal
    ? `DynamoDB Local at ${stack.dynamoDbEndpoint}, data in ${paths.dynamoDb}`
    : `DynamoDB at ${stack.dynamoDbEndpoint} (${ENV.dynamoDbEndpoint}), not this server's: it takes no lock on it (a data directory's lock covers the DynamoDB Local run there), adds the tables and key record it misses, and rewrites none it finds`;
  // A stored key keeps its plan: PETSTORE_API_KEY_PLAN only names the plan of a record made now.
  const keptPlan =
    settings.apiKeyPlan !== undefined && settings.apiKeyPlan !== stack.apiKeyPlan
      ? [
          `  Not ${settings.apiKeyPlan}: ${ENV.local.apiKeyPlan} applies to a key whose record this server creates, and a stored key's plan changes only with: npm run keys -- move ${stack.apiKeyId} --plan ${settings.apiKeyPlan} --endpoint ${stack.dynamoDbEndpoint} --table ${stack.tables.apiKeys}`,
        ]
      : [];
  const keySource = {
    PETSTORE_API_KEY: 'from PETSTORE_API_KEY',
    generated: `generated, kept in ${paths.apiKey}`,
    'data dir': `from ${paths.apiKey}`,
  }[stack.apiKeySource];
  return [
    `Pet store API listening on ${stack.gateway.baseUrl}`,
    `API key (${keySource}): ${stack.apiKey}`,
    ...(stack.apiKeyRevokedAt
      ? [
          `  This key was revoked at ${stack.apiKeyRevokedAt}: requests with it are refused (401). For a new one, ${stack.apiKeySource === 'PETSTORE_API_KEY' ? `set ${ENV.local.apiKey} to another key` : `stop the server, delete ${paths.apiKey} and start again`}.`,
        ]
      : []),
    `Its plan: ${stack.apiKeyPlan}, enforced as API Gateway would (${ENV.local.apiKeyPlan}=trial tries a client's back-off)`,
    ...keptPlan,
    `Database: ${database}`,
    `Browsers: ${settings.corsOrigins.includes(ANY_ORIGIN) ? `any origin may call it (set ${ENV.corsOrigins} to list some)` : `pages of ${settings.corsOrigins.join(', ')} may call it`}`,
    `Events: PetCreated, PetChanged and PetRemoved from the pets table's stream, each a line of ${stack.events.file} as EventBridge delivers it to a target`,
    stack.events.targets.length > 0
      ? `  and POSTed to ${stack.events.targets.join(', ')} (${ENV.local.eventTargets}), retried as an API destination is`
      : `  and POSTed to no URL (set ${ENV.local.eventTargets} to URLs, comma-separated)`,
    `Try: curl -H "Authorization: Bearer ${stack.apiKey}" ${stack.gateway.baseUrl}/pets`,
    `API reference: ${new URL('/docs', stack.gateway.baseUrl).href} (document: /openapi.yaml, /openapi.json)`,
    `Logs: here, on stdout and stderr: a line per request ending in its request id, and the functions' JSON lines (level ${settings.logLevel ?? 'WARN'}; set ${ENV.logLevel}) carrying it too.`,
    "A request's lines: its id is the requestId of every Error; grep it (keep them with: npm start 2>&1 | tee server.log, then grep <requestId> server.log).",
    'Stop with Ctrl+C.',
  ].join('\n');
};

/** `npm start`: the API in front of DynamoDB Local, until a signal or the loss of DynamoDB Local. */
export const runServer = async (): Promise<void> => {
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
    staticRoutes: referenceRoutes({ cacheDirectory: localCachePaths(settings.cacheDir).reference }),
    log,
    onFatal: (message) => shutdown(message, 1),
  });

  console.log(startBanner(settings, stack));

  // npm passes no SIGTERM on, and its `sh -c` outlives an npm killed with SIGKILL: once any launcher is
  // gone, stop too rather than leave this server and its Java running as orphans.
  const parent = process.ppid;
  const launchedBy = launchers();
  setInterval(() => {
    const gone = launchedBy.some((pid) => !isRunning(pid));
    if (process.ppid !== parent || gone) shutdown('parent process exited');
  }, 1_000).unref();
};
