import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions } from '#infra/bundling';
import { PROJECT_ROOT } from '#infra/project-root';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { TARGETS } from './functions';
import type { BenchEvent, BenchFunction } from './lambda-events';

/** One built bundle: where it is and what it weighs. */
export interface BuiltBundle {
  readonly file: string;
  /** Bytes of the `.mjs`: what Node reads and parses at cold start. */
  readonly bytes: number;
  /** Bytes of the `.mjs` gzipped (level 9): close to its share of the deployment zip. */
  readonly gzipBytes: number;
  /** Bytes of the source map next to it (read at cold start under `--enable-source-maps`). */
  readonly mapBytes: number;
  /** Bytes of the output by package (`zod`, `@smithy/core`, …; project files as `(project)`). */
  readonly byPackage: readonly { readonly name: string; readonly bytes: number }[];
}

export interface BundlePair {
  readonly name: BenchFunction;
  readonly service: BuiltBundle;
  readonly baseline: BuiltBundle;
}

/** What a child-process measurement (cold start, warm) needs: the harness, bundles and tables. */
export interface HarnessOptions {
  readonly harness: string;
  readonly pairs: readonly BundlePair[];
  readonly events: Readonly<Record<BenchFunction, BenchEvent>>;
  readonly endpoint: string;
  readonly names: TableNames;
  readonly workDir: string;
  readonly progress?: (line: string) => void;
}

export interface BuiltBundles {
  readonly pairs: readonly BundlePair[];
  /** The child-process harnesses (bench/child), built next to the bundles. */
  readonly coldStartHarness: string;
  readonly warmHarness: string;
}

const packageOf = (input: string): string => {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  return match?.[1] ?? '(project)';
};

const byPackage = (metafile: Metafile, outfile: string) => {
  const output = Object.entries(metafile.outputs).find(
    ([path]) => resolve(PROJECT_ROOT, path) === resolve(outfile),
  )?.[1];
  if (!output) throw new Error(`No metafile output for ${outfile}`);
  const totals = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    totals.set(packageOf(input), (totals.get(packageOf(input)) ?? 0) + bytesInOutput);
  }
  return [...totals]
    .map(([name, bytes]) => ({ name, bytes }))
    .filter(({ bytes }) => bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
};

/**
 * Builds one Lambda bundle with the stack's own esbuild options (infra/bundling.ts). `metafile`
 * only asks esbuild to describe what it wrote; the output is byte for byte the same.
 */
const buildLambda = async (entry: string, outfile: string): Promise<BuiltBundle> => {
  const { metafile } = await build({
    ...esbuildOptions(join(PROJECT_ROOT, entry), outfile),
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
  });
  return {
    file: outfile,
    bytes: statSync(outfile).size,
    gzipBytes: gzipSync(readFileSync(outfile), { level: 9 }).length,
    mapBytes: statSync(`${outfile}.map`).size,
    byPackage: byPackage(metafile, outfile),
  };
};

/** The harnesses are plain Node scripts, not Lambda bundles: built for this Node, unminified. */
const buildHarness = async (entry: string, outfile: string): Promise<string> => {
  await build({
    entryPoints: [join(PROJECT_ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
};

/** Builds every function, every baseline and the harnesses into `dir`; each entry once. */
export const buildBundles = async (dir: string): Promise<BuiltBundles> => {
  const built = new Map<string, Promise<BuiltBundle>>();
  const once = (entry: string, outfile: string) => {
    const bundle = built.get(entry) ?? buildLambda(entry, outfile);
    built.set(entry, bundle);
    return bundle;
  };
  const pairs = await Promise.all(
    TARGETS.map(async (target) => ({
      name: target.name,
      service: await once(target.entry, join(dir, 'service', target.name, 'index.mjs')),
      baseline: await once(target.baseline, join(dir, 'baseline', target.name, 'index.mjs')),
    })),
  );
  return {
    pairs,
    coldStartHarness: await buildHarness('bench/child/cold-start.ts', join(dir, 'harness', 'cold-start.mjs')),
    warmHarness: await buildHarness('bench/child/warm.ts', join(dir, 'harness', 'warm.mjs')),
  };
};
