import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { assertJava, freePort, JavaMissingError, startDynamoDbLocal } from '#tools/local/dynamodb-local';

/**
 * DynamoDB Local as `npm start` and the test runs start it: AWS's jar on Java, a shared database,
 * ready once it answers, stopped with its process. One real start here (about two seconds); the
 * restarts of `npm start` are in test/unit/dynamodb-supervisor.test.ts.
 */

/** The module under test and tsx, by path: the child process runs in a directory of its own. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MODULE = pathToFileURL(join(ROOT, 'tools', 'local', 'dynamodb-local.ts')).href;
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** Whether `pid` is a live process (not gone, not a zombie left for a parent to reap). */
const running = (pid: number): boolean => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

const dataDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('DynamoDB Local', () => {
  it('fails with what it said when it ends before answering, on a port that cannot be', async () => {
    await expect(startDynamoDbLocal({ port: 70_000, startTimeoutMs: 20_000 })).rejects.toThrow(
      /^DynamoDB Local exited with 0: [\s\S]*Invalid Port\. Port number must lie between 1 and 65535\.$/,
    );
  }, 30_000);

  it('starts on the port asked for, answers at once, keeps its data in the directory and stops', async () => {
    const port = await freePort();
    const javaOptions = process.env.JAVA_TOOL_OPTIONS;
    delete process.env.JAVA_TOOL_OPTIONS;
    const database = await startDynamoDbLocal({ port, dataDir: join(dataDir, 'db') });
    // A small heap and a quick start, unless the machine sets its own.
    const javaOptionsUsed = process.env.JAVA_TOOL_OPTIONS;
    process.env.JAVA_TOOL_OPTIONS = javaOptions;
    const client = createLocalClient(database.endpoint);
    try {
      const tables = await client.send(new ListTablesCommand({}));

      expect(javaOptionsUsed).toBe('-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1');
      expect(database.endpoint).toBe(`http://127.0.0.1:${port}`);
      expect(database.port).toBe(port);
      expect(database.pid).toBeGreaterThan(0);
      expect(database.stopping).toBe(false);
      expect(tables.TableNames).toEqual([]);
      // One database file for every client, whatever its credentials (`-sharedDb`).
      expect(readdirSync(join(dataDir, 'db'))).toEqual(['shared-local-instance.db']);
    } finally {
      client.destroy();
      await database.stop();
    }

    expect(database.stopping).toBe(true);
    expect(await database.exited).toEqual({ code: 143, signal: null });
  }, 30_000);

  it('fails, and leaves no process behind, when it does not answer in time', async () => {
    const started = startDynamoDbLocal({ startTimeoutMs: 0 });

    await expect(started).rejects.toThrow(new Error('DynamoDB Local did not answer within 0 ms: '));
  });

  it('fails with what to do when there is no Java', () => {
    const path = process.env.PATH;
    process.env.PATH = join(dataDir, 'no-java-here');
    try {
      expect(() => assertJava()).toThrow(new JavaMissingError());
      expect(new JavaMissingError().message).toBe(
        'DynamoDB Local needs Java 17 or newer, and `java` was not found on PATH. Install it (Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`), or set DYNAMODB_ENDPOINT to a DynamoDB you already run.',
      );
      expect(new JavaMissingError().name).toBe('JavaMissingError');
    } finally {
      process.env.PATH = path;
    }
    expect(() => assertJava()).not.toThrow();
  });

  it('fails with what to do when `java` is there but cannot run (a stub that exits 1)', () => {
    // As macOS's /usr/bin/java does when no Java is installed.
    const bin = join(dataDir, 'stub-java');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'java'), '#!/bin/sh\necho "No Java runtime present" >&2\nexit 1\n');
    chmodSync(join(bin, 'java'), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      expect(() => assertJava()).toThrow(new JavaMissingError());
    } finally {
      process.env.PATH = path;
    }
  });

  it('fails with the last 2000 characters of what Java said when it ends before answering', async () => {
    // Every class Java loads is logged on stderr (many kB) before DynamoDB Local refuses the port.
    const javaOptions = process.env.JAVA_TOOL_OPTIONS;
    process.env.JAVA_TOOL_OPTIONS = '-Xlog:class+load=info:stderr -XX:+UseSerialGC -XX:TieredStopAtLevel=1';
    try {
      const error = await startDynamoDbLocal({ port: 70_000, startTimeoutMs: 20_000 }).catch(
        (caught: Error) => caught,
      );

      expect((error as Error).message).toMatch(/^DynamoDB Local exited with 0: /);
      // The start of what it said (Java's "Picked up JAVA_TOOL_OPTIONS" line) is dropped.
      expect((error as Error).message).not.toContain('Picked up JAVA_TOOL_OPTIONS');
      expect((error as Error).message).toHaveLength('DynamoDB Local exited with 0: '.length + 2_000);
    } finally {
      process.env.JAVA_TOOL_OPTIONS = javaOptions;
    }
  }, 30_000);

  it('leaves no Java process, and nothing in its working directory, when the process that started it exits without stopping it', async () => {
    const work = mkdtempSync(join(tmpdir(), 'dynamodb-local-cwd-'));
    const script = [
      `const { startDynamoDbLocal } = await import(${JSON.stringify(MODULE)});`,
      `const database = await startDynamoDbLocal({ dataDir: ${JSON.stringify(join(dataDir, 'orphan'))} });`,
      'console.log(database.pid);',
      'process.exit(0);',
    ].join('\n');
    const parent = spawn(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    parent.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await new Promise((done) => parent.once('exit', done));
    const pid = Number(output.trim());
    const left = readdirSync(work);
    rmSync(work, { recursive: true, force: true });

    try {
      expect(pid).toBeGreaterThan(0);
      expect(left).toEqual([]);
      await expect.poll(() => running(pid), { timeout: 5_000 }).toBe(false);
    } finally {
      if (pid > 0 && running(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 30_000);

  it('finds a free port on loopback', async () => {
    const port = await freePort();
    const server = createServer();

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    server.close();

    expect(port).toBeGreaterThan(0);
  });
});
