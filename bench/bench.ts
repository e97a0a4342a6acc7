import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateApiKey } from '#shared/auth/api-key';
import { evaluateBudgets } from './budgets';
import { buildBundles } from './bundles';
import { measureCapacity } from './capacity';
import { measureColdStarts } from './cold-start';
import { measureEndToEnd } from './e2e';
import { benchEvents } from './lambda-events';
import { type ChildNode, findLambdaNode } from './lambda-node';
import { describeMachine } from './machine';
import { measurePartitionLoad } from './partition-load';
import type { BenchReport } from './report';
import { type BenchMode, SETTINGS } from './settings';
import { adminFor, createBenchTables, seedPets, storeApiKey } from './tables';
import { measureWarm } from './warm';

export interface RunBenchOptions {
  readonly mode: BenchMode;
  /** A running DynamoDB Local (each measurement makes tables of its own there). */
  readonly dynamoDbEndpoint: string;
  /** Bundles, harnesses and scratch files (`.bench/` is git-ignored). */
  readonly workDir: string;
  /** The Node the cold-start and warm children run on. @default findLambdaNode() */
  readonly childNode?: ChildNode;
  readonly progress?: (line: string) => void;
}

/** `openjdk version "17…"`: the line of `java -version` that names it (others echo JAVA_TOOL_OPTIONS). */
const javaVersion = async (): Promise<string> => {
  const output = await new Promise<string>((done) => {
    execFile('java', ['-version'], (_error, stdout, stderr) => done(`${stderr}${stdout}`));
  });
  return (
    output
      .split('\n')
      .find((line) => / version /.test(line))
      ?.trim() ?? 'java: unknown'
  );
};

/** Waits for all three, then fails with the first failure if any: nothing is left running. */
const settle = async <A, B, C>(jobs: [Promise<A>, Promise<B>, Promise<C>]): Promise<[A, B, C]> => {
  const [a, b, c] = await Promise.allSettled(jobs);
  for (const job of [a, b, c]) if (job.status === 'rejected') throw job.reason;
  return [
    (a as PromiseFulfilledResult<A>).value,
    (b as PromiseFulfilledResult<B>).value,
    (c as PromiseFulfilledResult<C>).value,
  ];
};

/**
 * One run of the benchmark: bundles, cold starts, warm invocations, DynamoDB capacity, end to end,
 * then the budgets. Measurements run one after the other, quietest first, so that none disturbs
 * another on a small machine; a quick run, which judges no timing, runs the three independent ones
 * side by side (`overlap`). The cold-start and warm children run on `childNode` (the Lambda's Node
 * major when it is installed); everything else (bundling, tables, capacity, the local server for
 * end to end) on this process's Node.
 */
export const runBench = async (options: RunBenchOptions): Promise<BenchReport> => {
  const started = performance.now();
  const settings = SETTINGS[options.mode];
  const endpoint = options.dynamoDbEndpoint;
  const progress = options.progress ?? (() => undefined);
  mkdirSync(options.workDir, { recursive: true });
  const childNode = options.childNode ?? findLambdaNode();
  progress(childNode.line);
  const java = javaVersion();

  const admin = adminFor(endpoint);
  try {
    const { key, record } = generateApiKey('bench');
    const events = benchEvents({ apiKey: key, existingPetId: 1 });

    const latency = async () => {
      progress('building bundles with infra/bundling.ts');
      const built = await buildBundles(join(options.workDir, 'bundles'));
      progress(`bundles built: ${built.pairs.length} functions and their baselines`);
      const latencyTables = await createBenchTables(admin, 'bench-latency');
      await seedPets(admin, latencyTables, settings.smallTable);
      await storeApiKey(admin, latencyTables, record);
      const measured = {
        endpoint,
        names: latencyTables,
        events,
        pairs: built.pairs,
        node: childNode.path,
        workDir: options.workDir,
        progress,
      };
      const coldStarts = await measureColdStarts({
        ...measured,
        harness: built.coldStartHarness,
        runs: settings.coldRuns,
        warmupRound: settings.coldWarmupRound,
        withoutSourceMaps: settings.coldWithoutSourceMaps,
        concurrency: settings.childConcurrency,
      });
      const warm = await measureWarm({
        ...measured,
        harness: built.warmHarness,
        iterations: settings.warmIterations,
        warmup: settings.warmWarmup,
        concurrency: settings.childConcurrency,
      });
      return { bundles: built.pairs, coldStarts, warm };
    };

    const capacity = async () => {
      const capacityTables = await createBenchTables(admin, 'bench-capacity');
      await storeApiKey(admin, capacityTables, record);
      return measureCapacity({
        admin,
        endpoint,
        names: capacityTables,
        events,
        smallTable: settings.smallTable,
        largeTable: settings.largeTable,
        requests: settings.capacityRequests,
        walkPage: settings.walkPage,
        progress,
      });
    };

    const partitionLoad = async () =>
      measurePartitionLoad({
        endpoint,
        names: await createBenchTables(admin, 'bench-partitions'),
        ...settings.partitionLoad,
      });

    const endToEnd = () =>
      measureEndToEnd({
        admin,
        endpoint,
        workDir: options.workDir,
        settings: settings.e2e,
        pets: settings.smallTable,
        progress,
      });

    const [{ bundles, coldStarts, warm }, metered, endToEndRows] = settings.overlap
      ? await settle([latency(), capacity(), endToEnd()])
      : [await latency(), await capacity(), await endToEnd()];
    // After the rest, alone: it makes thousands of creates as fast as DynamoDB Local takes them.
    const load = await partitionLoad();
    progress(`partition load: ${load.creates} creates, hottest key ${load.hottest[0]?.key}`);

    return {
      date: new Date().toISOString(),
      settings,
      machine: describeMachine(),
      childNode,
      javaVersion: await java,
      bundles,
      coldStarts,
      warm,
      endToEnd: endToEndRows,
      capacity: metered.rows,
      walks: metered.walks,
      partitionLoad: load,
      budgets: evaluateBudgets({
        mode: options.mode,
        bundles,
        coldStarts,
        warm,
        capacity: metered.rows,
        walks: metered.walks,
        partitionLoad: load,
      }),
      durationSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    admin.client.destroy();
  }
};
