import { statSync } from 'node:fs';
import pLimit from 'p-limit';
import { type BuiltBundles, pairOf } from './bundles';
import { type Children, runChild } from './children';
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

/** A function as deployed; its baseline as a raw function is usually deployed, and as the stack builds the function. */
const BUILDS = ['service', 'baseline', 'sameBundling'] as const;

/** Cold starts, a fresh process each; the order alternates between rounds so that drift hits all alike. */
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
      const [service, baseline, sameBundling] = [
        of(`${name}/service`),
        of(`${name}/baseline`),
        of(`${name}/sameBundling`),
      ];
      return {
        name,
        service,
        baseline,
        sameBundling,
        ratioPerRound: perRound(service, baseline),
        sameBundlingRatioPerRound: perRound(service, sameBundling),
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
        return { name: target.name, service: summarise(calls), baseline: summarise(baselineCalls) };
      }),
    ),
  );
};
export type WarmRow = Awaited<ReturnType<typeof measureWarm>>[number];
