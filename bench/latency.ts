import { statSync } from 'node:fs';
import pLimit from 'p-limit';
import { type BuiltBundles, pairOf } from './bundles';
import { type ChildResult, type Children, runChild } from './children';
import type { BenchSettings } from './settings';
import { type BenchTarget, type ChildTarget, PEER } from './targets';

/** Nearest-rank percentiles. */
const summarise = (sample: readonly number[]) => {
  const sorted = [...sample].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? Number.NaN;
  return { n: sorted.length, p50: at(50), p90: at(90), p99: at(99) };
};

/** A bundle's cold starts, one a round: load + first invocation (`totalMs`, the cold start), and the load alone. */
const series = (results: readonly { loadMs: number; firstInvokeMs: number }[]) => {
  const totalMs = results.map((result) => result.loadMs + result.firstInvokeMs);
  const loadMs = results.map((result) => result.loadMs);
  const firstInvoke = summarise(results.map((result) => result.firstInvokeMs));
  return { totalMs, loadMs, total: summarise(totalMs), load: summarise(loadMs), firstInvoke };
};
export type ColdStartSeries = ReturnType<typeof series>;

/** `a ÷ b` within each round (the two ran back to back), of the cold start or of the load alone. */
const perRound = (a: ColdStartSeries, b: ColdStartSeries, part: 'totalMs' | 'loadMs' = 'totalMs') =>
  summarise(a[part].map((value, round) => value / (b[part][round] ?? Number.NaN)));

/** A function as deployed, and its baseline as a raw function is usually deployed. */
const BUILDS = ['service', 'baseline'] as const;

/** Cold starts by the clock, a fresh process each; the order alternates between rounds so that drift hits all alike. */
export const measureColdStarts = async (
  children: Children,
  bundles: BuiltBundles,
  targets: readonly BenchTarget[],
  settings: BenchSettings,
  progress: (line: string) => void,
) => {
  const [first] = targets;
  if (!first) throw new Error('No function to time');
  const firstBundle = pairOf(bundles, first.name).service.file;
  const runs: { key: string; target: ChildTarget; bundle: string; env?: Record<string, string> }[] = [
    ...targets.flatMap((target) =>
      BUILDS.map((build) => ({
        key: `${target.name}/${build}`,
        target,
        bundle: pairOf(bundles, target.name)[build].file,
      })),
    ),
    { key: 'peer', target: PEER, bundle: bundles.peer.file },
    { key: 'source map', target: first, bundle: firstBundle, env: { NODE_OPTIONS: '--enable-source-maps' } },
  ];
  const results = new Map(runs.map((run) => [run.key, [] as { loadMs: number; firstInvokeMs: number }[]]));
  const limit = pLimit(settings.childConcurrency);
  for (let round = settings.coldWarmupRound ? 0 : 1; round <= settings.coldRuns; round++) {
    const order = round % 2 === 0 ? runs : [...runs].reverse();
    const coldStart = async ({ key, target, bundle, env = {} }: (typeof runs)[number]) => {
      const { loads, samples } = await runChild(children, target, [bundle], { env });
      if (round > 0)
        results
          .get(key)
          ?.push({ loadMs: loads[0] ?? Number.NaN, firstInvokeMs: samples[0]?.[0] ?? Number.NaN });
    };
    await Promise.all(order.map((run) => limit(() => coldStart(run))));
    if (round > 0) progress(`cold start: round ${round}/${settings.coldRuns}`);
  }
  const of = (key: string) => series(results.get(key) ?? []);
  const peer = of('peer');
  return {
    rows: targets.map(({ name }) => {
      const [service, baseline] = [of(`${name}/service`), of(`${name}/baseline`)];
      return {
        name,
        service,
        baseline,
        ratioPerRound: perRound(service, baseline),
        /** Of the import alone (Lambda's Init Duration): their calls differ. */
        peerRatioPerRound: perRound(service, peer, 'loadMs'),
      };
    }),
    /** The peer: middy and Powertools as usually written, deployed as usual (bench/peer.ts). */
    peer,
    /** What a source map read at run time costs: the first function with `--enable-source-maps`, against it as deployed. */
    sourceMap: {
      name: first.name,
      mapBytes: statSync(`${firstBundle}.map`).size,
      series: of('source map'),
      ratioPerRound: perRound(of('source map'), of(`${first.name}/service`)),
    },
  };
};
export type ColdStarts = Awaited<ReturnType<typeof measureColdStarts>>;

/**
 * The median of `ratios` and its 95% confidence interval, from their order statistics (no
 * assumption about their distribution): the median lies between the k-th smallest and the k-th
 * largest with k = (n − 1.96 √n) / 2.
 */
export const medianWithInterval = (ratios: readonly number[]) => {
  const sorted = [...ratios].sort((a, b) => a - b);
  const n = sorted.length;
  const k = Math.max(0, Math.floor((n - 1.96 * Math.sqrt(n)) / 2));
  const [low = Number.NaN, high = Number.NaN] = [sorted[k], sorted[n - 1 - k]];
  return { n, p50: summarise(sorted).p50, low, high, halfWidth: (high - low) / 2 };
};

/** The CPU time of a child's cold start: its import and its first invocation, every thread of it. */
const cpuOf = ({ loadsCpu, samplesCpu }: ChildResult) =>
  (loadsCpu[0] ?? Number.NaN) + (samplesCpu[0]?.[0] ?? 0);

/**
 * What the project's own code costs a cold start: each function against its baseline built the
 * same way, the two started side by side so that whatever else the machine runs weighs on both,
 * each timed in CPU milliseconds (others' work is not counted). Rounds go on, for a function
 * whose median of paired ratios is not yet known to ± `precision` (95%), up to `maxRounds`.
 */
export const measureOwnCode = async (
  children: Children,
  bundles: BuiltBundles,
  targets: readonly BenchTarget[],
  settings: BenchSettings,
  progress: (line: string) => void,
) => {
  const { minRounds, maxRounds, precision } = settings.ownCode;
  const runs = new Map(
    targets.map(({ name }) => [name, { service: [] as number[], sameBundling: [] as number[] }]),
  );
  const ratiosOf = (name: string) => {
    const { service = [], sameBundling = [] } = runs.get(name) ?? {};
    return service.map((cpu, round) => cpu / (sameBundling[round] ?? Number.NaN));
  };
  const known = (name: string) => {
    const ratios = ratiosOf(name);
    return ratios.length >= minRounds && medianWithInterval(ratios).halfWidth <= precision;
  };
  for (let round = settings.coldWarmupRound ? 0 : 1; round <= maxRounds; round++) {
    const open = targets.filter(({ name }) => round <= minRounds || !known(name));
    if (open.length === 0) break;
    for (const target of round % 2 === 0 ? open : [...open].reverse()) {
      const { service, sameBundling } = pairOf(bundles, target.name);
      const [first, second] = await Promise.all(
        (round % 2 === 0 ? [service, sameBundling] : [sameBundling, service]).map((bundle) =>
          runChild(children, target, [bundle.file]),
        ),
      );
      const [own, same] = round % 2 === 0 ? [first, second] : [second, first];
      const series = runs.get(target.name);
      if (round > 0 && own && same && series) {
        series.service.push(cpuOf(own));
        series.sameBundling.push(cpuOf(same));
      }
    }
    if (round > 0 && round % 10 === 0)
      progress(`own code: round ${round}, ${open.length} functions still measured`);
  }
  return targets.map(({ name }) => {
    const { service = [], sameBundling = [] } = runs.get(name) ?? {};
    return {
      name,
      service: summarise(service),
      sameBundling: summarise(sameBundling),
      ratio: medianWithInterval(ratiosOf(name)),
    };
  });
};
export type OwnCodeRow = Awaited<ReturnType<typeof measureOwnCode>>[number];

/** Warm invocations: per function (not variants), one process invoking its bundle and its baseline in turn. */
export const measureWarm = async (
  children: Children,
  bundles: BuiltBundles,
  targets: readonly BenchTarget[],
  settings: BenchSettings,
  progress: (line: string) => void,
) => {
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
        return {
          name: target.name,
          service: summarise(calls),
          baseline: summarise(baselineCalls),
          /** Each call against the baseline's of the same turn: another reading of the same ratio. */
          ratioPerCall: medianWithInterval(
            calls.map((call, turn) => call / (baselineCalls[turn] ?? Number.NaN)),
          ),
        };
      }),
    ),
  );
};
export type WarmRow = Awaited<ReturnType<typeof measureWarm>>[number];
