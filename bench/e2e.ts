import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon, { type Options } from 'autocannon';
import { PROJECT_ROOT } from '#infra/project-root';
import { ensureTables, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { LOCAL_TABLE_PREFIX } from '#tools/local/local-stack';
import type { BenchSettings } from './settings';
import { type Summary, summarise } from './stats';
import { type Admin, seedPets } from './tables';

export type E2eOperation = 'list' | 'create' | 'get';

export interface E2eRow {
  readonly operation: E2eOperation;
  readonly request: string;
  readonly connections: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  /** Latency of the expected answers (ms), measured per response from autocannon's events. */
  readonly latency: Summary;
  /** Answers other than the expected status, and socket errors/timeouts. */
  readonly failures: number;
}

interface Server {
  readonly baseUrl: string;
  readonly apiKey: string;
  stop(): Promise<void>;
}

const startServer = async (dataDir: string, endpoint: string): Promise<Server> => {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'bench/e2e-server.ts'), dataDir, endpoint],
    {
      cwd: PROJECT_ROOT,
      // npm start's own defaults: WARN logs, metrics off (nothing reads them locally).
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AWS_EC2_METADATA_DISABLED: 'true',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const ready = await new Promise<{ baseUrl: string; apiKey: string }>((resolveReady, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', (line) => resolveReady(JSON.parse(line) as { baseUrl: string; apiKey: string }));
    exited.then(() => reject(new Error(`The local server exited: ${stderr.trim()}`)));
  });
  child.stdout?.resume();
  return {
    ...ready,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
};

const load = async (
  options: Options,
  expected: number,
): Promise<{ latencies: number[]; failures: number; seconds: number }> => {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const instance = autocannon(options);
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode === expected) latencies.push(responseTime);
    else failures++;
  });
  const result = await instance;
  return {
    latencies,
    failures: failures + result.errors + result.timeouts,
    seconds: (performance.now() - started) / 1000,
  };
};

export interface E2eOptions {
  readonly admin: Admin;
  readonly endpoint: string;
  readonly workDir: string;
  readonly settings: BenchSettings['e2e'];
  /** Pets in the server's table before the load. */
  readonly pets: number;
  readonly progress?: (line: string) => void;
}

/**
 * End to end through the local server: gateway, authorizer and handler in one Node process (the
 * TypeScript sources, as `npm start` runs them), DynamoDB Local behind, autocannon in front, all
 * on loopback. Each operation gets a short warm-up, then a bounded run.
 */
export const measureEndToEnd = async (options: E2eOptions): Promise<E2eRow[]> => {
  const names = tableNamesFor(LOCAL_TABLE_PREFIX);
  await ensureTables(options.admin.client, names);
  await seedPets(options.admin, names, options.pets);
  const dataDir = join(options.workDir, 'e2e-data');
  mkdirSync(dataDir, { recursive: true });
  const server = await startServer(dataDir, options.endpoint);
  try {
    const auth = { Authorization: `Bearer ${server.apiKey}` };
    const plans: { operation: E2eOperation; request: string; expected: number; options: Options }[] = [
      {
        operation: 'list',
        request: 'GET /pets',
        expected: 200,
        options: { url: `${server.baseUrl}/pets`, headers: auth },
      },
      {
        operation: 'create',
        request: 'POST /pets',
        expected: 201,
        options: {
          url: `${server.baseUrl}/pets`,
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Bench', categoryId: 7 }),
        },
      },
      {
        operation: 'get',
        request: 'GET /pets/1',
        expected: 200,
        options: { url: `${server.baseUrl}/pets/1`, headers: auth },
      },
    ];
    const { settings } = options;
    const bound =
      'durationSeconds' in settings ? { duration: settings.durationSeconds } : { amount: settings.amount };
    const rows: E2eRow[] = [];
    for (const plan of plans) {
      // autocannon ends a run at its first sample after the bound: sample often, so that a run of
      // a few requests does not idle for the default second (nor count that second in requests/s).
      const base = { ...plan.options, connections: settings.connections, timeout: 10, sampleInt: 50 };
      if (settings.warmupRequests > 0)
        await load({ ...base, amount: settings.warmupRequests }, plan.expected);
      const run = await load({ ...base, ...bound }, plan.expected);
      if (run.latencies.length === 0) throw new Error(`${plan.request}: no ${plan.expected} answer at all`);
      rows.push({
        operation: plan.operation,
        request: plan.request,
        connections: settings.connections,
        requests: run.latencies.length + run.failures,
        requestsPerSecond: run.latencies.length / run.seconds,
        latency: summarise(run.latencies),
        failures: run.failures,
      });
      options.progress?.(`end to end: ${plan.request} done`);
    }
    return rows;
  } finally {
    await server.stop();
  }
};
