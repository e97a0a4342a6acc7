import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';
import { ESM_REQUIRE_BANNER, esbuildOptions } from '#infra/bundling';
import { keepOwnSources } from '#infra/own-sources-map';
import { PROJECT_ROOT } from '#infra/project-root';
import { type BenchTarget, PEER } from './targets';

const packageOf = (input: string): string =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(project)';

/** One esbuild call for all `entries` (SDK parsed once, no splitting): sizes, gzip -9, heaviest packages. */
const buildAll = async (options: BuildOptions, dir: string, entries: [key: string, entry: string][]) => {
  const { metafile } = await build({
    ...options,
    entryPoints: Object.fromEntries(entries.map(([key, entry]) => [key, join(PROJECT_ROOT, entry)])),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
  });
  const outputs = Object.entries(metafile?.outputs ?? {});
  return (key: string) => {
    const file = join(dir, `${key}.mjs`);
    const output = outputs.find(([path]) => resolve(PROJECT_ROOT, path) === file)?.[1];
    if (!output) throw new Error(`No bundle ${key}`);
    const totals = new Map<string, number>();
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      totals.set(packageOf(input), (totals.get(packageOf(input)) ?? 0) + bytesInOutput);
    }
    const largest = [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
    return {
      file,
      bytes: statSync(file).size,
      gzipBytes: gzipSync(readFileSync(file), { level: 9 }).length,
      largest: largest.slice(0, 4),
    };
  };
};

/** Functions as the stack builds them (infra/bundling.ts); baselines raw and as the stack; the harness. */
export const buildBundles = async (dir: string, targets: readonly BenchTarget[]) => {
  const { entryPoints: _entry, outfile: _outfile, ...stack } = esbuildOptions('<entry>', '<outfile>');
  const { alias: _aliases, ...usual } = stack;
  // Output paths without `.ts`: .build/entries/get-pet.mjs (a variant's is its function's).
  const own = targets.filter((target) => !target.variantOf);
  const serviceKey = (target: BenchTarget) => target.entry.replace(/\.ts$/, '');
  const rawKey = (target: BenchTarget) => target.variantOf ?? target.name;
  const baselines = own.map((target): [string, string] => [target.name, target.baseline]);
  // The functions and their baselines built as the stack builds them: one call, the SDK parsed once.
  const [asTheStack, raw] = await Promise.all([
    buildAll(stack, dir, [
      ...own.map((target): [string, string] => [join('service', serviceKey(target)), target.entry]),
      ...baselines.map(([name, entry]): [string, string] => [join('same-bundling', name), entry]),
    ]),
    buildAll({ ...usual, sourcemap: false }, join(dir, 'raw'), [...baselines, [PEER.name, PEER.entry]]),
    build({
      entryPoints: { child: join(PROJECT_ROOT, 'bench/child.ts') },
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // The SDK it loads to put back a removed pet (bench/tables.ts) requires Node's built-ins.
      banner: { js: ESM_REQUIRE_BANNER },
      logLevel: 'warning',
    }),
  ]);
  // The map beside each function, as the stack cuts it down (nodejsBundling).
  for (const target of own) keepOwnSources(`${join(dir, 'service', serviceKey(target))}.mjs.map`);
  return {
    pairs: targets.map((target) => ({
      name: target.name,
      service: asTheStack(join('service', serviceKey(target))),
      baseline: raw(rawKey(target)),
      /** The same baseline built as the stack builds the service: like for like. */
      sameBundling: asTheStack(join('same-bundling', rawKey(target))),
    })),
    peer: raw(PEER.name),
    harness: join(dir, 'child.mjs'),
  };
};

export type BuiltBundles = Awaited<ReturnType<typeof buildBundles>>;
export type BundlePair = BuiltBundles['pairs'][number];

export const pairOf = (bundles: BuiltBundles, name: string): BundlePair => {
  const pair = bundles.pairs.find((candidate) => candidate.name === name);
  if (!pair) throw new Error(`No bundles of ${name}`);
  return pair;
};
