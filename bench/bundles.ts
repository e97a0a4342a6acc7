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
  /** Bytes of the output by package (`valibot`, `@smithy/core`, …; project files as `(project)`). */
  readonly byPackage: readonly { readonly name: string; readonly bytes: number }[];
}

export interface BundlePair {
  readonly name: BenchFunction;
  readonly service: BuiltBundle;
  readonly baseline: BuiltBundle;
}

/** What a child-process measurement (cold start, warm) needs: the harness, bundles and tables. */
export interface HarnessOptions {
  /** The Node binary the children run on (bench/lambda-node.ts). */
  readonly node: string;
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

/** A bundle's place in the output folder, without `.mjs`: `service/list-pets/index`. */
type OutputKey = `${'service' | 'baseline'}/${string}/index`;

/**
 * Builds every Lambda bundle in ONE esbuild call with the stack's own options (infra/bundling.ts),
 * each entry its own self-contained output (no code splitting): esbuild parses the AWS SDK once
 * instead of once per bundle, about five times faster. Checked with esbuild 0.28: every `.mjs`
 * and `.map` is byte for byte what a build of that entry alone (the stack's NodejsFunction)
 * writes. `metafile` only asks esbuild to describe what it wrote.
 */
const buildLambdas = async (
  dir: string,
  entries: ReadonlyMap<OutputKey, string>,
): Promise<Map<OutputKey, BuiltBundle>> => {
  const { entryPoints: _entry, outfile: _outfile, ...options } = esbuildOptions('<entry>', '<outfile>');
  const { metafile } = await build({
    ...options,
    entryPoints: Object.fromEntries([...entries].map(([key, entry]) => [key, join(PROJECT_ROOT, entry)])),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
  });
  const built = new Map<OutputKey, BuiltBundle>();
  for (const key of entries.keys()) {
    const outfile = join(dir, `${key}.mjs`);
    built.set(key, {
      file: outfile,
      bytes: statSync(outfile).size,
      gzipBytes: gzipSync(readFileSync(outfile), { level: 9 }).length,
      mapBytes: statSync(`${outfile}.map`).size,
      byPackage: byPackage(metafile, outfile),
    });
  }
  return built;
};

/** The harnesses are plain Node scripts, not Lambda bundles: unminified, for any Node from 20 on. */
const buildHarnesses = async (dir: string) => {
  await build({
    entryPoints: {
      'cold-start': join(PROJECT_ROOT, 'bench/child/cold-start.ts'),
      warm: join(PROJECT_ROOT, 'bench/child/warm.ts'),
    },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return { coldStartHarness: join(dir, 'cold-start.mjs'), warmHarness: join(dir, 'warm.mjs') };
};

/** Builds every function, every baseline and the harnesses into `dir`; each entry once. */
export const buildBundles = async (dir: string): Promise<BuiltBundles> => {
  // The first target naming an entry gives its output its place; a variant reuses that bundle.
  const keyOf = new Map<string, OutputKey>();
  const keys = TARGETS.map((target) => {
    const key = (kind: 'service' | 'baseline', entry: string) => {
      const found = keyOf.get(entry) ?? (`${kind}/${target.name}/index` as const);
      keyOf.set(entry, found);
      return found;
    };
    return {
      name: target.name,
      service: key('service', target.entry),
      baseline: key('baseline', target.baseline),
    };
  });
  const [bundles, harnesses] = await Promise.all([
    buildLambdas(dir, new Map([...keyOf].map(([entry, key]) => [key, entry]))),
    buildHarnesses(join(dir, 'harness')),
  ]);
  const bundle = (key: OutputKey): BuiltBundle => {
    const found = bundles.get(key);
    if (!found) throw new Error(`No bundle ${key}`);
    return found;
  };
  return {
    pairs: keys.map(({ name, service, baseline }) => ({
      name,
      service: bundle(service),
      baseline: bundle(baseline),
    })),
    ...harnesses,
  };
};
