import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { ENV } from '#shared/config';
import { DataDirInUseError, dataDirHolder } from '#tools/local/data-dir-lock';
import { LocalConfigError } from '#tools/local/settings';

const codeOf = (error: unknown): string =>
  String((error as { code?: unknown }).code ?? (error as Error).name ?? 'unknown error');

/** Creates `dir` level by level (a recursive mkdirSync spins forever on e.g. `/proc/foo`); checks it is writable. */
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

const INSTALL = 'Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`';
const OR_ENDPOINT = 'or set DYNAMODB_ENDPOINT to a DynamoDB you already run.';

export class JavaMissingError extends LocalConfigError {
  override readonly name = 'JavaMissingError';
  constructor() {
    super(
      `DynamoDB Local needs Java 17 or newer, and \`java\` was not found on PATH. Install it (${INSTALL}), ${OR_ENDPOINT}`,
    );
  }
}

export class JavaTooOldError extends LocalConfigError {
  override readonly name = 'JavaTooOldError';
  constructor(found: number) {
    super(
      `DynamoDB Local needs Java 17 or newer, and \`java\` on PATH is Java ${found}. Install Java 17 or newer (${INSTALL}), ${OR_ENDPOINT}`,
    );
  }
}

/** No jdk.compiler module (some minimal JREs), which compiles the launcher (LoopbackDynamoDbLocal.java). */
export class JavaCompilerMissingError extends LocalConfigError {
  override readonly name = 'JavaCompilerMissingError';
  constructor() {
    super(
      'DynamoDB Local is started through a one-file Java launcher, and the `java` on PATH lacks the jdk.compiler module that runs it. ' +
        `Use a full JDK 17+ or Debian/Ubuntu's openjdk-17-jre-headless (both have it), ${OR_ENDPOINT}`,
    );
  }
}

/** What `java` with these arguments did (tests give what Java versions this machine lacks answer). */
export type JavaRun = (
  args: string[],
) => Pick<SpawnSyncReturns<string>, 'error' | 'status' | 'stdout' | 'stderr'>;

/** `--list-modules` names the version and jdk.compiler; Java 8, which does not know it, is asked for `-version`. */
export const assertJava = (java: JavaRun = (args) => spawnSync('java', args, { encoding: 'utf8' })): void => {
  const modules = java(['--list-modules']);
  if (modules.error) throw new JavaMissingError();
  const listed = modules.status === 0;
  const version = listed ? undefined : java(['-version']);
  const output = listed ? modules.stdout : version?.status === 0 ? version.stderr : '';
  // `java.base@17.0.2` in the modules, `version "1.8.0_392"` (Java 8) or `"11.0.2"` in -version's.
  const major = Number((/java\.base@(\d+)/.exec(output) ?? /version "(?:1\.)?(\d+)/.exec(output))?.[1]);
  if (!major) throw new JavaMissingError();
  if (!listed || major < 17) throw new JavaTooOldError(major);
  if (!/^jdk\.compiler@/m.test(modules.stdout)) throw new JavaCompilerMissingError();
};

/**
 * Every check npm start can make before the service's modules load, each failure a LocalConfigError
 * (`java`: how Java is run, a test's stand-in in place of a JVM's start).
 */
export const assertSettingsUsable = async (
  settings: {
    readonly dataDir: string;
    readonly port: number;
    readonly host: string;
    readonly dynamoDbEndpoint?: string;
  },
  java?: JavaRun,
): Promise<void> => {
  ensureDataDir(settings.dataDir);
  // Before the port: when the other server holds both, naming it says more than "port in use".
  if (!settings.dynamoDbEndpoint) {
    const holder = dataDirHolder(settings.dataDir);
    if (holder) throw new DataDirInUseError(holder, settings.dataDir);
  }
  await assertPortFree(settings.port, settings.host);
  if (settings.dynamoDbEndpoint) await assertDynamoDbReachable(settings.dynamoDbEndpoint);
  else assertJava(java);
};
