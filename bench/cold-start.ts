import pLimit from 'p-limit';
import type { BundlePair, HarnessOptions } from './bundles';
import { runChild } from './child-process';
import { functionEnvironment } from './function-env';
import { targetOf } from './functions';
import { type BenchFunction, EXPECTED_STATUS } from './lambda-events';
import { type Summary, summarise } from './stats';

/** What the child harness reports for one cold start (bench/child/cold-start.ts). */
interface ColdStartResult {
  readonly bootMs: number;
  readonly loadMs: number;
  readonly firstInvokeMs: number;
  readonly totalMs: number;
  readonly readyAtMs: number;
  readonly status: number;
}

export interface ColdStartSeries {
  /** Load the bundle + first invocation, per run (ms): the cold start. */
  readonly totalMs: readonly number[];
  readonly total: Summary;
  /** The parts of it, and process start to first answer (includes Node's own boot). */
  readonly load: Summary;
  readonly firstInvoke: Summary;
  readonly readyAt: Summary;
}

export interface ColdStartRow {
  readonly name: BenchFunction;
  readonly service: ColdStartSeries;
  readonly baseline: ColdStartSeries;
  /**
   * Service ÷ baseline within each round (the two ran next to each other): less sensitive to
   * drift than the ratio of the medians, which is what the budget reads.
   */
  readonly ratioPerRound: Summary;
  /** Both again without `--enable-source-maps` (what that option costs), when measured. */
  readonly withoutSourceMaps?: { readonly service: ColdStartSeries; readonly baseline: ColdStartSeries };
}

type Variant = 'service' | 'baseline' | 'serviceWithoutSourceMaps' | 'baselineWithoutSourceMaps';

const series = (results: readonly ColdStartResult[]): ColdStartSeries => ({
  totalMs: results.map((result) => result.totalMs),
  total: summarise(results.map((result) => result.totalMs)),
  load: summarise(results.map((result) => result.loadMs)),
  firstInvoke: summarise(results.map((result) => result.firstInvokeMs)),
  readyAt: summarise(results.map((result) => result.readyAtMs)),
});

export interface ColdStartOptions extends HarnessOptions {
  readonly runs: number;
  /** Run one round first and discard it (file cache, DynamoDB Local's first calls). */
  readonly warmupRound: boolean;
  /** Children at a time: 1 for a run whose timings count. */
  readonly concurrency: number;
  readonly withoutSourceMaps: boolean;
}

/**
 * Cold starts: each run of each bundle is a fresh `node` process that imports the bundle and
 * answers one event against DynamoDB Local. Rounds interleave service and baseline (and the
 * variants), alternating which goes first, so that drift over the run hits all alike. A first
 * round, when asked for, warms the file cache and DynamoDB Local and is discarded.
 */
export const measureColdStarts = async (options: ColdStartOptions): Promise<ColdStartRow[]> => {
  /** Without source maps too, except for a variant: its bundle's price is its function's. */
  const withoutSourceMaps = (pair: BundlePair) => options.withoutSourceMaps && !targetOf(pair.name).variantOf;
  const variantsOf = (pair: BundlePair): Variant[] =>
    withoutSourceMaps(pair)
      ? ['service', 'baseline', 'serviceWithoutSourceMaps', 'baselineWithoutSourceMaps']
      : ['service', 'baseline'];
  const results = new Map<string, ColdStartResult[]>();
  const once = async (pair: BundlePair, variant: Variant): Promise<ColdStartResult> => {
    const bundle = variant.startsWith('baseline') ? pair.baseline.file : pair.service.file;
    const env = functionEnvironment({
      endpoint: options.endpoint,
      names: options.names,
      functionName: pair.name,
      sourceMaps: !variant.endsWith('WithoutSourceMaps'),
    });
    const result = await runChild<ColdStartResult>(
      options.node,
      options.harness,
      [bundle, JSON.stringify(options.events[pair.name]), pair.name],
      env,
      options.workDir,
    );
    if (result.status !== EXPECTED_STATUS[pair.name]) {
      throw new Error(`${variant} ${pair.name} answered ${result.status} at cold start`);
    }
    return result;
  };

  const limit = pLimit(options.concurrency);
  for (let round = options.warmupRound ? 0 : 1; round <= options.runs; round++) {
    const runs = options.pairs.flatMap((pair) => {
      const variants = variantsOf(pair);
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      return order.map((variant) => ({ pair, variant }));
    });
    // One at a time, in this order, unless the run does not judge timings (`concurrency`).
    const measured = await Promise.all(runs.map(({ pair, variant }) => limit(() => once(pair, variant))));
    if (round === 0) continue;
    runs.forEach(({ pair, variant }, index) => {
      const key = `${pair.name}/${variant}`;
      results.set(key, [...(results.get(key) ?? []), measured[index] as ColdStartResult]);
    });
    options.progress?.(`cold start: round ${round}/${options.runs}`);
  }

  return options.pairs.map((pair) => {
    const of = (variant: Variant) => series(results.get(`${pair.name}/${variant}`) ?? []);
    const service = of('service');
    const baseline = of('baseline');
    return {
      name: pair.name,
      service,
      baseline,
      ratioPerRound: summarise(
        service.totalMs.map((value, round) => value / (baseline.totalMs[round] ?? Number.NaN)),
      ),
      ...(withoutSourceMaps(pair)
        ? {
            withoutSourceMaps: {
              service: of('serviceWithoutSourceMaps'),
              baseline: of('baselineWithoutSourceMaps'),
            },
          }
        : {}),
    };
  });
};
