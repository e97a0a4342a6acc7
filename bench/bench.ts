import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { generateApiKey } from '#shared/auth/api-key';
import { evaluateBudgets } from './budgets';
import { buildBundles } from './bundles';
import { measureCapacity } from './capacity';
import type { Children } from './children';
import { measureEventLatency } from './event-latency';
import { startEventBridgeStandIn } from './eventbridge-stand-in';
import { findLambdaNode } from './lambda-node';
import { measureColdStarts, measureOwnCode, measureWarm } from './latency';
import { startMeter } from './metering';
import { measurePartitionLoad } from './partition-load';
import { type BenchMode, SETTINGS } from './settings';
import { adminFor, createBenchTables, seedPets } from './tables';
import { benchTargets } from './targets';

/** The machine as the run begins; Java's line is the one naming its version (others echo JAVA_TOOL_OPTIONS). */
const describeMachine = (): string => {
  const { stdout, stderr } = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const java = `${stderr}${stdout}`.split('\n').find((line) => / version /.test(line));
  const [load = 0] = loadavg();
  const memory = `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`;
  const cpu = `${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores`;
  return `${cpu}, ${memory}; ${process.platform} ${process.arch}; ${java?.trim() ?? 'java: unknown'}; load average ${load.toFixed(1)} as the run began`;
};

/** One run, each measurement after the other so none disturbs another, unless no timing is judged (`overlap`). */
export const runBench = async (options: {
  readonly mode: BenchMode;
  /** Each measurement makes tables of its own there. */
  readonly dynamoDbEndpoint: string;
  readonly workDir: string;
  readonly progress: (line: string) => void;
}) => {
  const { mode, dynamoDbEndpoint: endpoint, workDir, progress } = options;
  const started = performance.now();
  const machine = describeMachine();
  const settings = SETTINGS[mode];
  mkdirSync(workDir, { recursive: true });
  const childNode = findLambdaNode();
  progress(childNode.line);
  const admin = adminFor(endpoint);
  // Capacity, then the partition load: never at the same time, so they can share one meter.
  const meter = await startMeter(endpoint);
  const eventBridge = await startEventBridgeStandIn();
  try {
    const { key, record } = generateApiKey('bench');
    const targets = benchTargets(key, undefined, { eventBridgeEndpoint: eventBridge.endpoint });
    progress('building bundles with infra/bundling.ts');
    const bundles = await buildBundles(join(workDir, 'bundles'), targets);
    const children = (names: TableNames): Children => ({
      node: childNode.path,
      harness: bundles.harness,
      workDir,
      endpoint,
      names,
    });
    const timings = async () => {
      const names = await createBenchTables(admin, 'bench-latency', record);
      await seedPets(admin, names, settings.smallTable);
      const coldStarts = await measureColdStarts(children(names), bundles, targets, settings, progress);
      const ownCode = await measureOwnCode(children(names), bundles, targets, settings, progress);
      return {
        coldStarts,
        ownCode,
        warm: await measureWarm(children(names), bundles, targets, settings, progress),
      };
    };
    const costs = async () => {
      const names = await createBenchTables(admin, 'bench-capacity', record);
      return measureCapacity({ admin, meter, names, targets, children: children(names), bundles }, settings);
    };

    const overlapped = settings.overlap ? ([timings(), costs()] as const) : undefined;
    // Side by side, nothing is left running when one of them fails.
    if (overlapped) await Promise.allSettled(overlapped);
    const { coldStarts, ownCode, warm } = await (overlapped?.[0] ?? timings());
    const capacity = await (overlapped?.[1] ?? costs());
    progress('capacity: done');
    // Alone: it times how soon each write's event is written.
    const eventLatency = await measureEventLatency({
      admin,
      endpoint,
      workDir,
      writes: settings.eventWrites,
    });
    progress(`events: p50 ${eventLatency.p50.toFixed(0)} ms, p99 ${eventLatency.p99.toFixed(0)} ms`);
    // After the rest, alone: it creates pets as fast as DynamoDB Local takes them.
    const names = await createBenchTables(admin, 'bench-partitions');
    const partitionLoad = await measurePartitionLoad({ meter, names, ...settings.partitionLoad });
    progress(
      `partition load: ${partitionLoad.creates} creates, hottest key ${partitionLoad.hottest[0]?.key}`,
    );

    const measured = {
      targets,
      bundles: bundles.pairs,
      coldStarts,
      ownCode,
      warm,
      capacity,
      partitionLoad,
      eventLatency,
    };
    return {
      ...measured,
      date: new Date().toISOString(),
      durationSeconds: (performance.now() - started) / 1000,
      settings,
      machine,
      /** The Node of the parent (bundling, tables, capacity, the partition load); `childNode`, the children's. */
      parentNode: process.version,
      childNode,
      peerBundle: bundles.peer,
      budgets: evaluateBudgets({ mode, ...measured }),
    };
  } finally {
    admin.client.destroy();
    await Promise.all([meter.close(), eventBridge.close()]);
  }
};
