import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateApiKey } from '#shared/auth/api-key';
import { evaluateBudgets } from './budgets';
import { buildBundles } from './bundles';
import { measureCapacity } from './capacity';
import { measureColdStarts } from './cold-start';
import { measureEndToEnd } from './e2e';
import { benchEvents } from './lambda-events';
import { describeMachine } from './machine';
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
  readonly progress?: (line: string) => void;
}

/** `openjdk version "17…"`: the line of `java -version` that names it (others echo JAVA_TOOL_OPTIONS). */
const javaVersion = (): string => {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const lines = `${probe.stderr ?? ''}${probe.stdout ?? ''}`.split('\n');
  return lines.find((line) => / version /.test(line))?.trim() ?? 'java: unknown';
};

/**
 * One run of the benchmark: bundles, cold starts, warm invocations, DynamoDB capacity, end to end,
 * then the budgets. Measurements run one after the other, quietest first, so that none disturbs
 * another on a small machine.
 */
export const runBench = async (options: RunBenchOptions): Promise<BenchReport> => {
  const started = performance.now();
  const settings = SETTINGS[options.mode];
  const endpoint = options.dynamoDbEndpoint;
  const progress = options.progress ?? (() => undefined);
  mkdirSync(options.workDir, { recursive: true });

  progress('building bundles with infra/bundling.ts');
  const built = await buildBundles(join(options.workDir, 'bundles'));

  const admin = adminFor(endpoint);
  try {
    const { key, record } = generateApiKey('bench');
    const latencyTables = await createBenchTables(admin, 'bench-latency');
    await seedPets(admin, latencyTables, 1, settings.smallTable);
    await storeApiKey(admin, latencyTables, record);
    const events = benchEvents({ apiKey: key, existingPetId: 1 });
    const measured = {
      endpoint,
      names: latencyTables,
      events,
      pairs: built.pairs,
      workDir: options.workDir,
      progress,
    };

    const coldStarts = await measureColdStarts({
      ...measured,
      harness: built.coldStartHarness,
      runs: settings.coldRuns,
      withoutSourceMaps: settings.coldWithoutSourceMaps,
    });
    const warm = await measureWarm({
      ...measured,
      harness: built.warmHarness,
      iterations: settings.warmIterations,
      warmup: settings.warmWarmup,
    });

    const capacityTables = await createBenchTables(admin, 'bench-capacity');
    await storeApiKey(admin, capacityTables, record);
    const capacity = await measureCapacity({
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

    const endToEnd = await measureEndToEnd({
      admin,
      endpoint,
      workDir: options.workDir,
      settings: settings.e2e,
      pets: settings.smallTable,
      progress,
    });

    return {
      date: new Date().toISOString(),
      settings,
      machine: describeMachine(),
      javaVersion: javaVersion(),
      bundles: built.pairs,
      coldStarts,
      warm,
      endToEnd,
      capacity,
      budgets: evaluateBudgets({ bundles: built.pairs, coldStarts, warm, capacity }),
      durationSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    admin.client.destroy();
  }
};
