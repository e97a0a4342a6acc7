import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { ENV } from '#shared/config';
import { lockDataDir } from '#tools/local/data-dir-lock';
import { startDynamoDbLocal } from '#tools/local/dynamodb-local';
import { LOCAL_TABLE_PREFIX, localApiKey, localDataPaths, readLocalSettings } from '#tools/local/settings';
import { ensureDataDir } from '#tools/local/startup-checks';

const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);

/** `npm run dev`: `npm start` under `tsx watch`, on a DynamoDB Local started (and locked) once here. */
export const runDevServer = async (): Promise<void> => {
  const settings = readLocalSettings(process.env);
  const { dataDir, port, dynamoDbEndpoint: endpoint, corsOrigins } = settings;
  ensureDataDir(dataDir);
  const { apiKey } = localApiKey(settings);
  const lock = endpoint
    ? undefined
    : await lockDataDir({ dataDir, port, apiKey, corsOrigins, server: 'npm run dev', log });
  const database = endpoint
    ? undefined
    : await startDynamoDbLocal({ dataDir: localDataPaths(dataDir).dynamoDb }).catch((error: unknown) => {
        lock?.release();
        throw error;
      });
  if (database?.pid !== undefined) lock?.update({ dynamoDbPid: database.pid });
  // Where `npm run keys -- … --local` finds the keys: the restarted server takes no lock of its own.
  if (database) {
    const { apiKeys } = tableNamesFor(LOCAL_TABLE_PREFIX);
    lock?.update({ dynamoDb: { endpoint: database.endpoint, apiKeysTable: apiKeys } });
  }

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
    lock?.release();
    process.exit(code);
  };
  server.on('exit', (code) => void stop(code ?? 0));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(0));
};
