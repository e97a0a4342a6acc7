import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { generateApiKey } from '#shared/auth/api-key';
import { evaluateBudgets } from './budgets';
import { buildBundles } from './bundles';
import { measureCapacity } from './capacity';
import type { Children } from './children';
import { type ChildNode, findLambdaNode } from './lambda-node';
import { measureColdStarts, measureWarm } from './latency';
import { startMeter } from './metering';
import { measurePartitionLoad } from './partition-load';
import { type BenchReport, describeMachine } from './report';
import { type BenchMode, SETTINGS } from './settings';
import { adminFor, createBenchTables, seedPets } from './tables';
import { benchTargets } from './targets';

export interface RunBenchOptions {
  readonly mode: BenchMode;
  /** Each measurement makes tables of its own there. */
  readonly dynamoDbEndpoint: string;
  readonly workDir: string;
  /** The Node the children run on. @default findLambdaNode() */
  readonly childNode?: ChildNode;
  readonly progress?: (line: string) => void;
}

/** `openjdk version "17…"`: the line of `java -version` that names it (others echo JAVA_TOOL_OPTIONS). */
const javaVersion = () =>
  new Promise<string>((done) => {
    execFile('java', ['-version'], (_error, stdout, stderr) =>
      done(
        `${stderr}${stdout}`
          .split('\n')
          .find((line) => / version /.test(line))
          ?.trim() ?? 'java: unknown',
      ),
    );
  });

/** One run, each measurement after the other so none disturbs another, unless no timing is judged (`overlap`). */
export const runBench = async (options: RunBenchOptions): Promise<BenchReport> => {
  const started = performance.now();
  const [loadAverage = 0] = loadavg();
  const settings = SETTINGS[options.mode];
  const progress = options.progress ?? (() => undefined);
  mkdirSync(options.workDir, { recursive: true });
  const childNode = options.childNode ?? findLambdaNode();
  progress(childNode.line);
  const java = javaVersion();
  const admin = adminFor(options.dynamoDbEndpoint);
  // Capacity, then the partition load: never at the same time, so they can share one meter.
  const meter = await startMeter(options.dynamoDbEndpoint);
  try {
    const { key, record } = generateApiKey('bench');
    const targets = benchTargets(key);
    progress('building bundles with infra/bundling.ts');
    const bundles = await buildBundles(join(options.workDir, 'bundles'), targets);
    const children = (names: TableNames): Children => ({
      node: childNode.path,
      harness: bundles.harness,
      workDir: options.workDir,
      endpoint: options.dynamoDbEndpoint,
      names,
    });
    const timings = async () => {
      const names = await createBenchTables(admin, 'bench-latency', record);
      await seedPets(admin, names, settings.smallTable);
      const coldStarts = await measureColdStarts(children(names), bundles, targets, settings, progress);
      return { coldStarts, warm: await measureWarm(children(names), bundles, targets, settings, progress) };
    };
    const costs = async () => {
      const names = await createBenchTables(admin, 'bench-capacity', record);
      const at = { admin, meter, names, targets, children: children(names), bundles };
      return measureCapacity(at, settings);
    };

    const overlapped = settings.overlap ? ([timings(), costs()] as const) : undefined;
    // Side by side, nothing is left running when one of them fails.
    if (overlapped) await Promise.allSettled(overlapped);
    const { coldStarts, warm } = await (overlapped?.[0] ?? timings());
    const capacity = await (overlapped?.[1] ?? costs());
    progress('capacity: done');
    // After the rest, alone: it creates pets as fast as DynamoDB Local takes them.
    const names = await createBenchTables(admin, 'bench-partitions');
    const partitionLoad = await measurePartitionLoad({ meter, names, ...settings.partitionLoad });
    progress(
      `partition load: ${partitionLoad.creates} creates, hottest key ${partitionLoad.hottest[0]?.key}`,
    );

    const measured = { targets, bundles: bundles.pairs, coldStarts, warm, capacity, partitionLoad };
    return {
      ...measured,
      date: new Date().toISOString(),
      durationSeconds: (performance.now() - started) / 1000,
      settings,
      machine: describeMachine(await java, loadAverage),
      parentNode: process.version,
      childNode,
      peerBundle: bundles.peer,
      budgets: evaluateBudgets({ mode: options.mode, ...measured }),
    };
  } finally {
    admin.client.destroy();
    await meter.close();
  }
};
