import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  DataDirInUseError,
  dataDirHolder,
  type LockRecord,
  lockDataDir,
  StrayDynamoDbLocalError,
} from '#tools/local/data-dir-lock';
import { isRunning } from '#tools/local/processes';
import { localDataPaths } from '#tools/local/settings';
import { deadPid, waitingWith } from '../support/processes';

/**
 * The data directory lock (tools/local/data-dir-lock.ts) against real lock files and real
 * processes standing for its owners: `sleep` for a server that runs, the PID of a process that has
 * exited for one that is gone, and processes whose command line is DynamoDB Local's (the
 * launcher or the jar, `-dbPath` and a directory) or almost is. Real servers and a real DynamoDB
 * Local are in test/integration/data-dir-lock.test.ts.
 */

const dirs: string[] = [];
const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-lock-unit-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A running process whose command line is `sleep 60`: a server that still runs. */
const liveServer = (): ChildProcess => {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  return child;
};

/** A process that waits, with `args` on its command line (as DynamoDB Local's, or almost). */
const processWith = (args: readonly string[]): ChildProcess => {
  const child = waitingWith(args);
  children.push(child);
  return child;
};

const SERVING = { apiKey: 'psk_lock-unit', corsOrigins: ['*'] };
const LAUNCHER = '/opt/petstore/tools/local/LoopbackDynamoDbLocal.java';
const JAR = '/opt/dynamodb_local_2026-01-16/DynamoDBLocal.jar';

const lockFile = (dataDir: string) => localDataPaths(dataDir).lock;
const databaseDir = (dataDir: string) => resolve(localDataPaths(dataDir).dynamoDb);
const writeLock = (dataDir: string, record: object | string) =>
  writeFileSync(lockFile(dataDir), typeof record === 'string' ? record : JSON.stringify(record));
const lockOf = (dataDir: string): LockRecord =>
  JSON.parse(readFileSync(lockFile(dataDir), 'utf8')) as LockRecord;

/** A lock left by a server that is gone, as npm start writes one. */
const goneServer = (changes: Partial<LockRecord> = {}): LockRecord => ({
  pid: deadPid(),
  command: 'node --import tsx tools/local/start.ts',
  server: 'npm start',
  port: 3000,
  apiKey: 'psk_old',
  corsOrigins: [],
  startedAt: '2026-01-01T00:00:00.000Z',
  ...changes,
});

/** Takes `dataDir`, saying what it cleaned up in `said`, and gives it up again. */
const takeAndRelease = async (dataDir: string) => {
  const said: string[] = [];
  const lock = await lockDataDir({ ...SERVING, dataDir, port: 3000, log: (line) => said.push(line) });
  const taken = lockOf(dataDir);
  lock.release();
  return { said, taken };
};

describe('the data directory lock, with processes standing for its owners', () => {
  it('refuses a directory whose server runs, in one sentence naming it, its PID and port, and leaves its lock', async () => {
    const dataDir = newDataDir();
    const server = liveServer();
    const held = goneServer({
      pid: server.pid as number,
      command: 'sleep 60',
      server: 'npm run dev',
      port: 3001,
    });
    writeLock(dataDir, held);

    const attempt = lockDataDir({ ...SERVING, dataDir, port: 3000 });

    await expect(attempt).rejects.toThrow(new DataDirInUseError(held, dataDir).message);
    await expect(attempt).rejects.toMatchObject({ name: 'DataDirInUseError', holder: held });
    expect(new DataDirInUseError(held, dataDir).message).toBe(
      `Another npm run dev (PID ${server.pid}, API port 3001) is using the data directory ${dataDir}: stop it (Ctrl+C where it runs, or kill ${server.pid}), or set PETSTORE_DATA_DIR to another directory.`,
    );
    expect(lockOf(dataDir)).toEqual(held);
    expect(dataDirHolder(dataDir)).toEqual(held);
  });

  it('knows no holder for a directory without a lock, or whose lock names a gone server', () => {
    const dataDir = newDataDir();
    expect(dataDirHolder(dataDir)).toBeUndefined();

    writeLock(dataDir, goneServer());
    expect(dataDirHolder(dataDir)).toBeUndefined();
    expect(dataDirHolder(join(dataDir, 'not-there'))).toBeUndefined();
  });

  it.each([
    ['a PID but no command', (): object => ({ pid: deadPid() })],
    ['a command but no PID', (): object => ({ command: 'sleep 60' })],
    ['a PID that is not a number', (): object => ({ pid: String(deadPid()), command: 'sleep 60' })],
    ['not JSON', (): string => '{"pid": 12'],
  ])('takes over, saying nothing, a lock that is not a lock record (%s)', async (_, record) => {
    const dataDir = newDataDir();
    writeLock(dataDir, record());

    const { said, taken } = await takeAndRelease(dataDir);

    expect(said).toEqual([]);
    expect(taken.pid).toBe(process.pid);
    expect(existsSync(lockFile(dataDir))).toBe(false);
  });

  it.each([
    ['it recorded none', () => undefined],
    ['its PID has exited', () => deadPid()],
    ['its PID is now another program', () => liveServer().pid],
    ['its PID serves another directory', () => processWith([LAUNCHER, '-dbPath', '/elsewhere']).pid],
  ])(
    "takes over a gone server's lock, stopping no DynamoDB Local, when that is not one on the directory (%s)",
    async (_, dynamoDbPid) => {
      const dataDir = newDataDir();
      const held = goneServer({ dynamoDbPid: dynamoDbPid() });
      writeLock(dataDir, held);

      const { said, taken } = await takeAndRelease(dataDir);

      expect(said).toEqual([
        `The server that held ${dataDir} (PID ${held.pid}) is gone: taking the directory over`,
      ]);
      expect(taken).toMatchObject({ pid: process.pid, port: 3000, apiKey: 'psk_lock-unit' });
      for (const child of children) expect(isRunning(child.pid as number)).toBe(true);
    },
  );

  it.each([
    ['the launcher', LAUNCHER],
    ["the launcher's class", 'LoopbackDynamoDbLocal'],
    ['the jar', JAR],
  ])(
    'stops the DynamoDB Local (run by %s) a gone server left on the directory, then takes it',
    async (_, program) => {
      const dataDir = newDataDir();
      const database = processWith([program, '-port', '8000', '-dbPath', databaseDir(dataDir), '-sharedDb']);
      const ended = once(database, 'exit');
      const held = goneServer({ dynamoDbPid: database.pid as number });
      writeLock(dataDir, held);

      const { said, taken } = await takeAndRelease(dataDir);

      expect(await ended).toEqual([null, 'SIGTERM']);
      expect(said).toEqual([
        `The server that held ${dataDir} (PID ${held.pid}) is gone and its DynamoDB Local (PID ${database.pid}) still runs: stopping it`,
      ]);
      expect(taken.pid).toBe(process.pid);
    },
  );

  it('takes the directory when the stale lock is removed while it is being taken over', async () => {
    const dataDir = newDataDir();
    writeLock(dataDir, goneServer());

    const taking = lockDataDir({ ...SERVING, dataDir, port: 3000 });
    // Another server took the stale lock over and gave the directory up meanwhile.
    rmSync(lockFile(dataDir));
    const lock = await taking;

    expect(lockOf(dataDir).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lockFile(dataDir))).toBe(false);
  });

  it('puts back, and is refused by, the lock a running server wrote over the stale one meanwhile', async () => {
    const dataDir = newDataDir();
    writeLock(dataDir, goneServer());
    const server = liveServer();
    const newer = goneServer({ pid: server.pid as number, command: 'sleep 60', port: 3001 });

    const taking = lockDataDir({ ...SERVING, dataDir, port: 3000 });
    writeLock(dataDir, newer);

    await expect(taking).rejects.toThrow(new DataDirInUseError(newer, dataDir).message);
    expect(lockOf(dataDir)).toEqual(newer);
  });

  it("fails with the file system's error, taking nothing over, when the lock cannot be read", async () => {
    const dataDir = newDataDir();
    mkdirSync(lockFile(dataDir));

    await expect(lockDataDir({ ...SERVING, dataDir, port: 3000 })).rejects.toMatchObject({ code: 'EISDIR' });
    expect(existsSync(lockFile(dataDir))).toBe(true);
  });

  it('refuses, with the command to run, a directory DynamoDB Locals no server owns are using, and gives the lock up', async () => {
    const dataDir = newDataDir();
    const directory = databaseDir(dataDir);
    const strays = [
      processWith([LAUNCHER, '-dbPath', directory]),
      processWith([
        '-cp',
        JAR,
        'com.amazonaws.services.dynamodbv2.local.main.ServerRunner',
        '-dbPath',
        directory,
      ]),
    ];
    const pids = strays.map((stray) => stray.pid as number).sort((a, b) => a - b);
    const listeners = process.listenerCount('exit');

    const attempt = lockDataDir({ ...SERVING, dataDir, port: 3000 });

    await expect(attempt).rejects.toThrow(
      `A DynamoDB Local that no running server owns (PID ${pids.join(', ')}) is using ${directory}: stop it with \`kill ${pids.join(' ')}\`, then start again.`,
    );
    await expect(attempt).rejects.toMatchObject({ name: 'StrayDynamoDbLocalError' });
    expect(existsSync(lockFile(dataDir))).toBe(false);
    expect(process.listenerCount('exit')).toBe(listeners);
    for (const pid of pids) expect(isRunning(pid)).toBe(true);
  });

  it.each([
    ['the launcher on another directory', [LAUNCHER, '-dbPath', '/elsewhere']],
    ['the directory after another option', [LAUNCHER, '-sharedDb', 'DIRECTORY']],
    ['the directory, but neither the launcher nor the jar', ['backup.sh', '-dbPath', 'DIRECTORY']],
    ['a file named after the launcher', [`${LAUNCHER}.orig`, '-dbPath', 'DIRECTORY']],
    ["a file named after the launcher's class", ['/tmp/LoopbackDynamoDbLocal', '-dbPath', 'DIRECTORY']],
  ])('does not take a process for a stray DynamoDB Local on the directory (%s)', async (_, args) => {
    const dataDir = newDataDir();
    processWith(args.map((arg) => (arg === 'DIRECTORY' ? databaseDir(dataDir) : arg)));

    const { said, taken } = await takeAndRelease(dataDir);

    expect(said).toEqual([]);
    expect(taken.pid).toBe(process.pid);
  });

  it('gives the directory up on exit, unless released first, and only while the lock is its own', async () => {
    const dataDir = newDataDir();
    const listeners = process.listenerCount('exit');

    const lock = await lockDataDir({ ...SERVING, dataDir, port: 3000 });
    const whileHeld = process.listenerCount('exit');
    // Another server's lock now (it took the directory over): left alone.
    const other = goneServer({ pid: liveServer().pid as number, command: 'sleep 60' });
    writeLock(dataDir, other);
    lock.release();

    expect(whileHeld).toBe(listeners + 1);
    expect(process.listenerCount('exit')).toBe(listeners);
    expect(lockOf(dataDir)).toEqual(other);
  });

  it.each([
    ['not a lock record', '{"pid": 12'],
    ['gone', undefined],
  ])('leaves the lock file alone on release when it is %s', async (_, content) => {
    const dataDir = newDataDir();
    const lock = await lockDataDir({ ...SERVING, dataDir, port: 3000 });
    if (content === undefined) rmSync(lock.file);
    else writeLock(dataDir, content);

    lock.release();

    expect(content === undefined ? existsSync(lock.file) : readFileSync(lock.file, 'utf8')).toBe(
      content ?? false,
    );
  });

  it('names every PID of the strays in the refusal', () => {
    const error = new StrayDynamoDbLocalError([41, 42], '/data/dynamodb');

    expect(error.name).toBe('StrayDynamoDbLocalError');
    expect(error.message).toBe(
      'A DynamoDB Local that no running server owns (PID 41, 42) is using /data/dynamodb: stop it with `kill 41 42`, then start again.',
    );
  });
});
