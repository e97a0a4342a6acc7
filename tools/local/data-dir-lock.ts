import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  argumentsOf,
  commandLineOf,
  endProcess,
  NotPermittedError,
  ownCommandLine,
  processesWhere,
} from '#tools/local/processes';
import {
  DYNAMODB_LOCAL_LAUNCHER,
  DYNAMODB_LOCAL_LAUNCHER_CLASS,
  LocalConfigError,
  localDataPaths,
} from '#tools/local/settings';

/**
 * One server per data directory (two DynamoDB Locals on one file corrupt each other's writes); its lock (mode
 * 600: it holds the key) tells seed, smoke and keys how to reach it. A stale lock is taken once its DynamoDB Local stops.
 */

export interface LockRecord {
  readonly pid: number;
  /** So that a PID reused by another program is not taken for the server. */
  readonly command: string;
  /** `npm start` or `npm run dev`. */
  readonly server: string;
  /** 0 until it listens, when asked for any port. */
  readonly port: number;
  readonly dynamoDbPid?: number;
  /** Where its DynamoDB Local answers and which table holds the keys: how `npm run keys -- --local` finds them. */
  readonly dynamoDb?: { readonly endpoint: string; readonly apiKeysTable: string };
  readonly apiKey: string;
  readonly corsOrigins: readonly string[];
  readonly startedAt: string;
}

export class DataDirInUseError extends LocalConfigError {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly holder: LockRecord,
    dataDir: string,
  ) {
    super(
      `Another ${holder.server} (PID ${holder.pid}, API port ${holder.port}) is using the data directory ${dataDir}: stop it (Ctrl+C where it runs, or kill ${holder.pid}), or set PETSTORE_DATA_DIR to another directory.`,
    );
  }
}

export class StrayDynamoDbLocalError extends LocalConfigError {
  override readonly name = 'StrayDynamoDbLocalError';
  constructor(pids: readonly number[], directory: string) {
    super(
      `A DynamoDB Local that no running server owns (PID ${pids.join(', ')}) is using ${directory}: stop it with \`kill ${pids.join(' ')}\`, then start again.`,
    );
  }
}

export interface DataDirLock {
  readonly file: string;
  update(changes: Partial<Pick<LockRecord, 'port' | 'dynamoDbPid' | 'dynamoDb'>>): void;
  /** Gives the directory up (only if the lock is still this process's). */
  release(): void;
}

export interface LockOptions extends Pick<LockRecord, 'port' | 'apiKey' | 'corsOrigins'> {
  readonly dataDir: string;
  /** @default 'npm start' */
  readonly server?: string;
  /** Says what was cleaned up. */
  readonly log?: (line: string) => void;
}

const read = (file: string): LockRecord | 'missing' | 'unreadable' => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    return typeof value.pid === 'number' && typeof value.command === 'string'
      ? (value as LockRecord)
      : 'unreadable';
  } catch {
    return 'unreadable';
  }
};

const holderRuns = (record: LockRecord): boolean => commandLineOf(record.pid) === record.command;

const servesDirectory = (args: readonly string[], directory: string): boolean =>
  args.some(
    (arg) =>
      arg === DYNAMODB_LOCAL_LAUNCHER_CLASS ||
      arg.endsWith(DYNAMODB_LOCAL_LAUNCHER) ||
      arg.endsWith('DynamoDBLocal.jar'),
  ) && args.some((arg, index) => arg === '-dbPath' && args[index + 1] === directory);

/** Writes `record` to a draft of the lock file, readable by its owner only (it holds the key). */
const draftOf = (file: string, record: LockRecord): string => {
  const draft = `${file}.${process.pid}.draft`;
  writeFileSync(draft, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  return draft;
};

/** Creates the lock file with `record` in one step: there or not, never half-written. */
const create = (file: string, record: LockRecord): boolean => {
  const draft = draftOf(file, record);
  try {
    linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
};

/** Removes the stale lock `seen`, unless another server replaced it meanwhile (then it is put back). */
const removeStale = (file: string, seen: LockRecord | 'unreadable') => {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (JSON.stringify(read(aside)) !== JSON.stringify(seen)) {
    try {
      linkSync(aside, file);
    } catch {
      // Another server holds it by now; the one moved aside was stale after all.
    }
  }
  rmSync(aside, { force: true });
};

/** Refuses a lock whose server still runs; stops the DynamoDB Local a gone server left on `directory`. */
const endGoneHolder = async (
  held: LockRecord,
  dataDir: string,
  directory: string,
  log: (line: string) => void,
) => {
  if (holderRuns(held)) throw new DataDirInUseError(held, dataDir);
  const java = held.dynamoDbPid;
  const javaArgs = java === undefined ? undefined : argumentsOf(java);
  if (java === undefined || !javaArgs || !servesDirectory(javaArgs, directory)) {
    log(`The server that held ${dataDir} (PID ${held.pid}) is gone: taking the directory over`);
    return;
  }
  log(
    `The server that held ${dataDir} (PID ${held.pid}) is gone and its DynamoDB Local (PID ${java}) still runs: stopping it`,
  );
  try {
    await endProcess(java);
  } catch (error) {
    if (!(error instanceof NotPermittedError)) throw error;
    throw new StrayDynamoDbLocalError([java], directory);
  }
};

/** Takes the data directory for this process, before DynamoDB Local starts; cleans up after a server that is gone. */
export const lockDataDir = async (options: LockOptions): Promise<DataDirLock> => {
  const { lock: file, dynamoDb } = localDataPaths(options.dataDir);
  const directory = resolve(dynamoDb);
  const log = options.log ?? (() => undefined);
  let record: LockRecord = {
    pid: process.pid,
    command: ownCommandLine(),
    server: options.server ?? 'npm start',
    port: options.port,
    apiKey: options.apiKey,
    corsOrigins: options.corsOrigins,
    startedAt: new Date().toISOString(),
  };
  while (!create(file, record)) {
    const held = read(file);
    if (held === 'missing') continue;
    // Never half-written (created and updated whole): an unreadable lock is damage, taken over.
    if (held !== 'unreadable') await endGoneHolder(held, options.dataDir, directory, log);
    removeStale(file, held);
  }

  const release = () => {
    process.off('exit', release);
    const current = read(file);
    if (typeof current === 'object' && current.pid === process.pid) rmSync(file, { force: true });
  };
  // However this process ends short of SIGKILL, the directory is given up.
  process.on('exit', release);

  const strays = processesWhere((args) => servesDirectory(args, directory));
  if (strays.length > 0) {
    release();
    throw new StrayDynamoDbLocalError(strays, directory);
  }

  return {
    file,
    update: (changes) => {
      record = { ...record, ...changes };
      renameSync(draftOf(file, record), file);
    },
    release,
  };
};

/** The running server that holds `dataDir`, if any (nothing is changed). */
export const dataDirHolder = (dataDir: string): LockRecord | undefined => {
  const held = read(localDataPaths(dataDir).lock);
  return typeof held === 'object' && holderRuns(held) ? held : undefined;
};
