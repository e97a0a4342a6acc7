import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { ENV } from '#shared/config';
import { DataDirInUseError, dataDirHolder } from '#tools/local/data-dir-lock';
import { assertJava } from '#tools/local/java';
import { LocalConfigError } from '#tools/local/settings';

const codeOf = (error: unknown): string =>
  String((error as { code?: unknown }).code ?? (error as Error).name ?? 'unknown error');

/**
 * Creates `dir` one level at a time (a recursive mkdirSync spins forever on some paths, such as
 * `/proc/foo`) and checks a file can be written in it.
 */
export const ensureDataDir = (dir: string, setting: string = ENV.local.dataDir): void => {
  const cannot = (what: string, error: unknown) =>
    new LocalConfigError(
      `${setting}=${dir} cannot be used: ${what} (${codeOf(error)}). Set ${setting} to a directory you can write to.`,
    );
  const missing: string[] = [];
  let existing = dir;
  while (!existsSync(existing)) {
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  if (!statSync(existing).isDirectory()) {
    throw new LocalConfigError(
      `${setting}=${dir} cannot be used: ${existing} is a file, not a directory. Set ${setting} to a directory you can write to.`,
    );
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw cannot(`cannot create ${path}`, error);
    }
  }
  const probe = join(dir, `.write-check-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw cannot('cannot write a file in it', error);
  }
};

export const listenError = (error: unknown, port: number, host: string, setting: string = ENV.local.port) => {
  const code = codeOf(error);
  return new LocalConfigError(
    code === 'EADDRINUSE'
      ? `Port ${port} on ${host} is in use: stop what holds it, or set ${setting} to a free port (e.g. ${setting}=${port + 1}).`
      : `Cannot listen on ${host}:${port} (${code}): set ${setting} to another port.`,
  );
};

export const assertPortFree = (port: number, host: string, setting: string = ENV.local.port): Promise<void> =>
  new Promise((resolvePort, reject) => {
    if (port === 0) {
      resolvePort();
      return;
    }
    const server = createServer();
    server.once('error', (error) => reject(listenError(error, port, host, setting)));
    server.listen(port, host, () => server.close(() => resolvePort()));
  });

export const REACHABLE_TIMEOUT_MS = 1_000;

export const assertDynamoDbReachable = async (
  endpoint: string,
  setting: string = ENV.dynamoDbEndpoint,
): Promise<void> => {
  // Loaded here, not at the top: a bad setting is reported before the SDK has even loaded.
  const { pingDynamoDb } = await import('#shared/adapters/dynamodb/create-tables');
  try {
    await pingDynamoDb(endpoint, REACHABLE_TIMEOUT_MS);
  } catch (error) {
    throw new LocalConfigError(
      `No DynamoDB answers at ${setting}=${endpoint} (${codeOf(error)}): start it, fix ${setting}, or unset it to use the embedded DynamoDB Local.`,
    );
  }
};

/** Every check npm start can make before the service's modules load, each failure a LocalConfigError. */
export const assertSettingsUsable = async (settings: {
  readonly dataDir: string;
  readonly port: number;
  readonly host: string;
  readonly dynamoDbEndpoint?: string;
}): Promise<void> => {
  ensureDataDir(settings.dataDir);
  // Before the port: when the other server holds both, naming it says more than "port in use".
  if (!settings.dynamoDbEndpoint) {
    const holder = dataDirHolder(settings.dataDir);
    if (holder) throw new DataDirInUseError(holder, settings.dataDir);
  }
  await assertPortFree(settings.port, settings.host);
  if (settings.dynamoDbEndpoint) await assertDynamoDbReachable(settings.dynamoDbEndpoint);
  else assertJava();
};
