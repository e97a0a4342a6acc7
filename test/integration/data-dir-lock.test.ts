import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import {
  DataDirInUseError,
  dataDirHolder,
  type LockRecord,
  lockDataDir,
  StrayDynamoDbLocalError,
} from '#tools/local/data-dir-lock';
import { START_TIMEOUT_MS, startDynamoDbLocal } from '#tools/local/dynamodb-local';
import { commandLineOf, isRunning } from '#tools/local/processes';
import { localDataPaths } from '#tools/local/settings';
import { deadPid } from '../support/processes';

/**
 * One server per data directory (tools/local/data-dir-lock.ts), with real processes: servers that
 * are gone (a process that has exited), a DynamoDB Local left running by a server killed with
 * SIGKILL, and one that no server owns.
 */

const dirs: string[] = [];
const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-lock-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** What a server's lock says of how to reach it. */
const SERVING = { apiKey: 'psk_lock-test', corsOrigins: ['*'] };

const lockOf = (dataDir: string): LockRecord =>
  JSON.parse(readFileSync(localDataPaths(dataDir).lock, 'utf8')) as LockRecord;

const staleLock = (dataDir: string, record: Partial<LockRecord>) =>
  writeFileSync(
    localDataPaths(dataDir).lock,
    JSON.stringify({
      pid: deadPid(),
      command: 'node --import tsx tools/local/start.ts',
      server: 'npm start',
      port: 3000,
      startedAt: '2026-01-01T00:00:00.000Z',
      ...record,
    }),
  );

// Processes start here (a server gone, a DynamoDB Local): seconds each on a busy machine.
describe('the data directory lock', { timeout: START_TIMEOUT_MS }, () => {
  it('records who holds the directory, updates it, and is given up on release', async () => {
    const dataDir = newDataDir();

    const lock = await lockDataDir({ ...SERVING, dataDir, port: 3000 });
    const taken = lockOf(dataDir);
    lock.update({ port: 3001, dynamoDbPid: 4242 });
    const updated = lockOf(dataDir);
    const mode = statSync(lock.file).mode & 0o777;
    lock.release();

    expect(taken).toMatchObject({
      pid: process.pid,
      command: commandLineOf(process.pid),
      server: 'npm start',
      port: 3000,
      apiKey: 'psk_lock-test',
      corsOrigins: ['*'],
    });
    // It holds the key: its owner's only, as the key file is.
    expect(mode).toBe(0o600);
    expect(updated).toMatchObject({ pid: process.pid, port: 3001, dynamoDbPid: 4242 });
    expect(existsSync(lock.file)).toBe(false);
  });

  it('refuses a second server on a held directory with one sentence naming the first, its PID and port', async () => {
    const dataDir = newDataDir();
    const first = await lockDataDir({ ...SERVING, dataDir, port: 3000, server: 'npm run dev' });
    try {
      const second = lockDataDir({ ...SERVING, dataDir, port: 3001 });

      await expect(second).rejects.toThrow(DataDirInUseError);
      await expect(second).rejects.toThrow(
        `Another npm run dev (PID ${process.pid}, API port 3000) is using the data directory ${dataDir}: stop it (Ctrl+C where it runs, or kill ${process.pid}), or set PETSTORE_DATA_DIR to another directory.`,
      );
      expect(dataDirHolder(dataDir)?.pid).toBe(process.pid);
      expect(lockOf(dataDir).port).toBe(3000);
    } finally {
      first.release();
    }
  });

  it('lets exactly one of two servers starting at once on a stale lock take the directory', async () => {
    const dataDir = newDataDir();
    staleLock(dataDir, {});

    const outcomes = await Promise.allSettled([
      lockDataDir({ ...SERVING, dataDir, port: 3000 }),
      lockDataDir({ ...SERVING, dataDir, port: 3001 }),
    ]);

    const taken = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect([taken.length, refused.length]).toEqual([1, 1]);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(DataDirInUseError);
    (taken[0] as PromiseFulfilledResult<{ release(): void }>).value.release();
  });

  it.each([
    ['its PID has exited', (): Partial<LockRecord> => ({})],
    [
      'its PID is now another program',
      (): Partial<LockRecord> => ({ pid: process.pid, command: 'vim notes.txt' }),
    ],
  ])('takes over a lock whose server is gone (%s), and says so', async (_, record) => {
    const dataDir = newDataDir();
    staleLock(dataDir, record());
    const said: string[] = [];

    const lock = await lockDataDir({ ...SERVING, dataDir, port: 3000, log: (line) => said.push(line) });
    lock.release();

    expect(said).toEqual([
      expect.stringMatching(/^The server that held .* \(PID \d+\) is gone: taking the directory over$/),
    ]);
  });

  it('takes over a lock that is not a lock record (a truncated file)', async () => {
    const dataDir = newDataDir();
    writeFileSync(localDataPaths(dataDir).lock, '{"pid": 12');

    const lock = await lockDataDir({ ...SERVING, dataDir, port: 3000 });

    expect(lockOf(dataDir).pid).toBe(process.pid);
    lock.release();
  });

  it(
    'stops the DynamoDB Local a killed server left running on the directory, then takes it',
    async () => {
      const dataDir = newDataDir();
      // A server as npm start runs one: the lock, then DynamoDB Local, whose PID it records.
      const script = [
        `const { lockDataDir } = await import(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'tools/local/data-dir-lock.ts')).href)});`,
        `const { startDynamoDbLocal } = await import(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'tools/local/dynamodb-local.ts')).href)});`,
        `const dataDir = ${JSON.stringify(dataDir)};`,
        `const lock = await lockDataDir({ ...${JSON.stringify(SERVING)}, dataDir, port: 3000 });`,
        `const database = await startDynamoDbLocal({ dataDir: ${JSON.stringify(localDataPaths(dataDir).dynamoDb)} });`,
        'lock.update({ dynamoDbPid: database.pid });',
        'console.log(database.pid);',
        'setInterval(() => undefined, 60_000);',
      ].join('\n');
      const server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const [line] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
      const java = Number(line);
      // Frozen, it cannot notice its parent go (its launcher would end it): it stays, as an orphan.
      process.kill(java, 'SIGSTOP');
      server.kill('SIGKILL');
      await once(server, 'exit');
      const said: string[] = [];

      try {
        expect(isRunning(java)).toBe(true);
        const lock = await lockDataDir({ ...SERVING, dataDir, port: 3001, log: (text) => said.push(text) });
        lock.release();

        expect(isRunning(java)).toBe(false);
        expect(said).toEqual([
          `The server that held ${dataDir} (PID ${server.pid}) is gone and its DynamoDB Local (PID ${java}) still runs: stopping it`,
        ]);
      } finally {
        if (isRunning(java)) process.kill(java, 'SIGKILL');
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    'refuses, with the command to run, a directory a DynamoDB Local no server owns is using',
    async () => {
      const dataDir = newDataDir();
      const directory = localDataPaths(dataDir).dynamoDb;
      mkdirSync(directory);
      const stray = await startDynamoDbLocal({ dataDir: directory });
      try {
        const attempt = lockDataDir({ ...SERVING, dataDir, port: 3000 });

        await expect(attempt).rejects.toThrow(StrayDynamoDbLocalError);
        await expect(attempt).rejects.toThrow(
          `A DynamoDB Local that no running server owns (PID ${stray.pid}) is using ${directory}: stop it with \`kill ${stray.pid}\`, then start again.`,
        );
        // Refused without taking the directory, and without touching the stray.
        expect(existsSync(localDataPaths(dataDir).lock)).toBe(false);
        expect(isRunning(stray.pid as number)).toBe(true);
      } finally {
        await stray.stop();
      }
    },
    START_TIMEOUT_MS,
  );
});
