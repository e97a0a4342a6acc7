import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { ENV } from '#shared/config';
import { startDynamoDbLocal } from '#tools/local/dynamodb-local';
import { readLocalSettings } from '#tools/local/settings';
import { ensureDataDir } from '#tools/local/startup-checks';

/**
 * `npm run dev`: `npm start` with the handlers reloaded on every change. DynamoDB Local is started
 * once, here; the server runs under `tsx watch` pointed at it through DYNAMODB_ENDPOINT, so a
 * reload restarts the server in a fraction of a second and never the database.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const main = async () => {
  const { dataDir, dynamoDbEndpoint: endpoint } = readLocalSettings(process.env);
  ensureDataDir(dataDir);
  const database = endpoint ? undefined : await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb') });

  const server = spawn(
    join(PROJECT_ROOT, 'node_modules/.bin/tsx'),
    ['watch', '--clear-screen=false', 'tools/local/start.ts'],
    {
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        [ENV.local.dataDir]: dataDir,
        [ENV.dynamoDbEndpoint]: endpoint ?? database?.endpoint,
      },
    },
  );

  const stop = async (code: number) => {
    if (server.exitCode === null) server.kill('SIGTERM');
    await database?.stop();
    process.exit(code);
  };
  server.on('exit', (code) => void stop(code ?? 0));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(0));
};

main().catch((error: unknown) => {
  console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
