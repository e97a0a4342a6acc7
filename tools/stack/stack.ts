import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { PROJECT_ROOT } from '#infra/project-root';

/**
 * `npm run stack -- <function | map file> [log file]`: a logged stack trace, back in the sources.
 *
 * The functions run without source maps (docs/decisions/0002-no-runtime-source-maps.md), so a
 * stack in their logs names places in the minified bundle (`file:///var/task/index.mjs:1:23456`).
 * This reads a log (the file, or standard input: a stack, the function's JSON lines, a Logs
 * Insights export) and writes it again with every such place replaced by the source file, line
 * and column the build's source map gives. The map is the one beside the bundle in the function's
 * code package (`index.mjs.map`); or, given a function's name (`get-pet`), that of a build of the
 * checkout with the stack's options: esbuild writes the same bundle for the same sources, so at
 * the deployed commit it is the deployed function's map.
 */

/** The source map of `name`'s bundle, built as the stack builds it, into a temporary folder. */
const buildMap = async (name: string): Promise<string> => {
  // Only for a build: reading a given map needs none of them (nor the CDK they bring).
  const [{ build }, { authorizerRoot }, { OPERATIONS }, { esbuildOptions }] = await Promise.all([
    import('esbuild'),
    import('#functions/authorizer/root'),
    import('#functions/operations'),
    import('#infra/bundling'),
  ]);
  const root = [...OPERATIONS, authorizerRoot].find(
    (candidate) => candidate.name === name || candidate.entry.split('/').at(-2) === name,
  );
  if (!root) throw new Error(`No function ${name}: give a function's name (get-pet) or a .map file`);
  const outfile = join(mkdtempSync(join(tmpdir(), 'stack-')), 'index.mjs');
  await build({ ...esbuildOptions(join(PROJECT_ROOT, root.entry), outfile), absWorkingDir: PROJECT_ROOT });
  return `${outfile}.map`;
};

/** Every `<bundle>:<line>:<column>` in `text`, replaced by the place in the sources it was built from. */
const mapStack = (text: string, mapFile: string): string => {
  const map = new TraceMap(readFileSync(mapFile, 'utf8'), mapFile);
  const bundle = basename(mapFile, '.map').replace(/[.]/g, '\\.');
  return text.replace(new RegExp(`[^\\s()"'\`]*${bundle}:(\\d+):(\\d+)`, 'g'), (place, line, column) => {
    // V8 counts columns from 1; source maps from 0.
    const found = originalPositionFor(map, { line: Number(line), column: Number(column) - 1 });
    if (!found.source) return place;
    const source = resolve(found.source.replace(/^file:\/\//, ''));
    const shown = source.startsWith(PROJECT_ROOT) ? relative(PROJECT_ROOT, source) : found.source;
    return `${shown.replace(/^(\.\.\/)+/, '')}:${found.line}:${found.column + 1}`;
  });
};

const main = async () => {
  const [target, logFile] = process.argv.slice(2);
  if (!target)
    throw new Error('usage: npm run stack -- <function | map file> [log file] (or the log on stdin)');
  const mapFile = target.endsWith('.map') ? target : await buildMap(target);
  process.stdout.write(mapStack(readFileSync(logFile ?? 0, 'utf8'), mapFile));
};

await main();
