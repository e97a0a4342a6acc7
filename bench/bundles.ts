import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { ESM_REQUIRE_BANNER, esbuildOptions } from '#infra/bundling';
import { keepOwnSources } from '#infra/own-sources-map';
import { PROJECT_ROOT } from '#infra/project-root';
import { type BenchTarget, PEER } from './targets';

export interface BuiltBundle {
  readonly file: string;
  readonly bytes: number;
  /** Gzipped (level 9): close to its share of the deployment zip. */
  readonly gzipBytes: number;
  /** The packages that weigh most in it (project files as `(project)`). */
  readonly largest: readonly { readonly name: string; readonly bytes: number }[];
}

export interface BundlePair {
  readonly name: string;
  readonly service: BuiltBundle;
  /** Its baseline as a raw function is usually built: esbuild's usual options, none of the stack's aliases, no map. */
  readonly baseline: BuiltBundle;
  /** The same baseline built as the stack builds the service (esbuildOptions, aliases included): like for like. */
  readonly sameBundling: BuiltBundle;
}

export interface BuiltBundles {
  readonly pairs: readonly BundlePair[];
  readonly peer: BuiltBundle;
  /** The child process every run of a bundle goes through. */
  readonly harness: string;
}

export const pairOf = (bundles: BuiltBundles, name: string): BundlePair => {
  const pair = bundles.pairs.find((candidate) => candidate.name === name);
  if (!pair) throw new Error(`No bundles of ${name}`);
  return pair;
};

const packageOf = (input: string): string =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(project)';

/**
 * Builds `entries` (output key → entry file) in one esbuild call, which parses the AWS SDK once;
 * each output is byte for byte what a build of its entry alone writes (no code splitting).
 */
const buildAll = async (options: BuildOptions, dir: string, entries: Map<string, string>) => {
  const { metafile } = await build({
    ...options,
    entryPoints: Object.fromEntries([...entries].map(([key, entry]) => [key, join(PROJECT_ROOT, entry)])),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
  });
  const outputs = (metafile as Metafile).outputs;
  return new Map(
    [...entries.keys()].map((key): [string, BuiltBundle] => {
      const file = join(dir, `${key}.mjs`);
      const output = Object.entries(outputs).find(([path]) => resolve(PROJECT_ROOT, path) === file)?.[1];
      const totals = new Map<string, number>();
      for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
        totals.set(packageOf(input), (totals.get(packageOf(input)) ?? 0) + bytesInOutput);
      }
      const largest = [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
      return [
        key,
        {
          file,
          bytes: statSync(file).size,
          gzipBytes: gzipSync(readFileSync(file), { level: 9 }).length,
          largest: largest.slice(0, 4),
        },
      ];
    }),
  );
};

/**
 * Every function as the stack builds it; every baseline and the peer as a raw function is usually
 * built (the same esbuild options without the stack's aliases, infra/bundling.ts, and no source
 * map); every baseline again as the stack builds a function (aliases and map), so that the
 * project's code is weighed like for like apart from what the bundling gains; and the child
 * harness (for any Node from 20 on).
 */
export const buildBundles = async (dir: string, targets: readonly BenchTarget[]): Promise<BuiltBundles> => {
  const { entryPoints: _entry, outfile: _outfile, ...stack } = esbuildOptions('<entry>', '<outfile>');
  const { alias: _aliases, ...usual } = stack;
  // Output paths without `.ts`: .build/entries/get-pet.mjs (a variant's is its function's).
  const own = targets.filter((target) => !target.variantOf);
  const serviceKey = (target: BenchTarget) => target.entry.replace(/\.ts$/, '');
  const rawKey = (target: BenchTarget) => target.variantOf ?? target.name;
  const [service, raw, same] = await Promise.all([
    buildAll(stack, join(dir, 'service'), new Map(own.map((target) => [serviceKey(target), target.entry]))),
    buildAll(
      { ...usual, sourcemap: false },
      join(dir, 'raw'),
      new Map([
        ...own.map((target): [string, string] => [target.name, target.baseline]),
        [PEER.name, PEER.entry],
      ]),
    ),
    buildAll(
      stack,
      join(dir, 'same-bundling'),
      new Map(own.map((target): [string, string] => [target.name, target.baseline])),
    ),
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
  for (const { file } of service.values()) keepOwnSources(`${file}.map`);
  const bundle = (bundles: Map<string, BuiltBundle>, key: string): BuiltBundle => {
    const found = bundles.get(key);
    if (!found) throw new Error(`No bundle ${key}`);
    return found;
  };
  return {
    pairs: targets.map((target) => ({
      name: target.name,
      service: bundle(service, serviceKey(target)),
      baseline: bundle(raw, rawKey(target)),
      sameBundling: bundle(same, rawKey(target)),
    })),
    peer: bundle(raw, PEER.name),
    harness: join(dir, 'child.mjs'),
  };
};
