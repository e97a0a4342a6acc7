import { statSync } from 'node:fs';
import pLimit from 'p-limit';
import { type BuiltBundles, pairOf } from './bundles';
import { type Children, type ColdStart, coldStart, runChild } from './children';
import type { BenchSettings } from './settings';
import { type BenchTarget, type ChildTarget, PEER } from './targets';

/** Summary of a sample (ms, or ratios): nearest-rank percentiles. */
export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

export const summarise = (sample: readonly number[]): Summary => {
  const sorted = [...sample].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? Number.NaN;
  return { n: sorted.length, p50: at(50), p90: at(90), p99: at(99) };
};

export interface ColdStartSeries {
  /** Load + first invocation, per round (ms): the cold start; and the load alone. */
  readonly totalMs: readonly number[];
  readonly loadMs: readonly number[];
  readonly total: Summary;
  readonly load: Summary;
  readonly firstInvoke: Summary;
}

export interface ColdStartRow {
  readonly name: string;
  readonly service: ColdStartSeries;
  /** Its baseline, as a raw function is usually deployed: no runtime source maps, no map. */
  readonly baseline: ColdStartSeries;
  /** Its baseline built as the stack builds the service: what the project's own code costs, like for like. */
  readonly sameBundling: ColdStartSeries;
  /** Service ÷ baseline within each round (the two ran back to back): what the budget reads. */
  readonly ratioPerRound: Summary;
  /** Service ÷ the baseline built the same way, within each round. */
  readonly sameBundlingRatioPerRound: Summary;
  /** Service ÷ the peer within each round, of the import alone (Lambda's Init Duration): their calls differ. */
  readonly peerRatioPerRound: Summary;
}

export interface ColdStarts {
  readonly rows: readonly ColdStartRow[];
  /** The peer: middy and Powertools as usually written, deployed as usual (bench/peer.ts). */
  readonly peer: ColdStartSeries;
  /** What a source map read at run time costs: the first function with `--enable-source-maps`. */
  readonly sourceMap: {
    readonly name: string;
    readonly mapBytes: number;
    readonly series: ColdStartSeries;
    /** With the map ÷ as deployed, within each round. */
    readonly ratioPerRound: Summary;
  };
}

const series = (results: readonly ColdStart[]): ColdStartSeries => ({
  totalMs: results.map((result) => result.totalMs),
  loadMs: results.map((result) => result.loadMs),
  total: summarise(results.map((result) => result.totalMs)),
  load: summarise(results.map((result) => result.loadMs)),
  firstInvoke: summarise(results.map((result) => result.firstInvokeMs)),
});

const perRound = (a: ColdStartSeries, b: ColdStartSeries, part: 'totalMs' | 'loadMs' = 'totalMs'): Summary =>
  summarise(a[part].map((value, round) => value / (b[part][round] ?? Number.NaN)));

/**
 * Cold starts, each a fresh process that imports one bundle and answers one event. A round runs
 * every function, its baseline (as usually built, and as the stack builds), the peer, and the first function with its source map read at run
 * time, in an order that alternates between rounds, so that drift hits all alike.
 */
export const measureColdStarts = async (
  children: Children,
  bundles: BuiltBundles,
  targets: readonly BenchTarget[],
  settings: BenchSettings,
  progress: (line: string) => void,
): Promise<ColdStarts> => {
  const [first] = targets;
  if (!first) throw new Error('No function to time');
  const runs: { key: string; target: ChildTarget; bundle: string; env?: Record<string, string> }[] = [
    ...targets.flatMap((target) => [
      { key: `${target.name}/service`, target, bundle: pairOf(bundles, target.name).service.file },
      { key: `${target.name}/baseline`, target, bundle: pairOf(bundles, target.name).baseline.file },
      {
        key: `${target.name}/same-bundling`,
        target,
        bundle: pairOf(bundles, target.name).sameBundling.file,
      },
    ]),
    { key: 'peer', target: PEER, bundle: bundles.peer.file },
    {
      key: 'source map',
      target: first,
      bundle: pairOf(bundles, first.name).service.file,
      env: { NODE_OPTIONS: '--enable-source-maps' },
    },
  ];
  const results = new Map<string, ColdStart[]>();
  const limit = pLimit(settings.childConcurrency);
  for (let round = settings.coldWarmupRound ? 0 : 1; round <= settings.coldRuns; round++) {
    const order = round % 2 === 0 ? runs : [...runs].reverse();
    const measured = await Promise.all(
      order.map((run) => limit(() => coldStart(children, run.target, run.bundle, run.env))),
    );
    if (round === 0) continue;
    order.forEach((run, index) => {
      const result = measured[index];
      if (result) results.set(run.key, [...(results.get(run.key) ?? []), result]);
    });
    progress(`cold start: round ${round}/${settings.coldRuns}`);
  }
  const of = (key: string) => series(results.get(key) ?? []);
  const peer = of('peer');
  return {
    rows: targets.map((target) => {
      const service = of(`${target.name}/service`);
      const baseline = of(`${target.name}/baseline`);
      const sameBundling = of(`${target.name}/same-bundling`);
      const ratioPerRound = perRound(service, baseline);
      return {
        name: target.name,
        service,
        baseline,
        sameBundling,
        ratioPerRound,
        sameBundlingRatioPerRound: perRound(service, sameBundling),
        peerRatioPerRound: perRound(service, peer, 'loadMs'),
      };
    }),
    peer,
    sourceMap: {
      name: first.name,
      mapBytes: statSync(`${pairOf(bundles, first.name).service.file}.map`).size,
      series: of('source map'),
      ratioPerRound: perRound(of('source map'), of(`${first.name}/service`)),
    },
  };
};

export interface WarmRow {
  readonly name: string;
  readonly service: Summary;
  readonly baseline: Summary;
}

/** Warm invocations: per function (not variants), one process invoking its bundle and its baseline in turn. */
export const measureWarm = async (
  children: Children,
  bundles: BuiltBundles,
  targets: readonly BenchTarget[],
  settings: BenchSettings,
  progress: (line: string) => void,
): Promise<WarmRow[]> => {
  const limit = pLimit(settings.childConcurrency);
  const own = targets.filter((target) => !target.variantOf);
  return Promise.all(
    own.map((target) =>
      limit(async () => {
        const { service, baseline } = pairOf(bundles, target.name);
        const { samples } = await runChild(children, target, [service.file, baseline.file], {
          iterations: settings.warmIterations,
          warmup: settings.warmWarmup,
        });
        const [calls = [], baselineCalls = []] = samples;
        progress(`warm: ${target.name} done`);
        return { name: target.name, service: summarise(calls), baseline: summarise(baselineCalls) };
      }),
    ),
  );
};
