import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode, encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec';
import { PROJECT_ROOT } from '#infra/project-root';

/**
 * Node reads it in a tenth of the time (docs/decisions/0002-no-runtime-source-maps.md). A run in
 * dependencies becomes one unmapped place, so a frame there is not named in the wrong file.
 */
export const keepOwnSources = (mapFile: string): void => {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[]; mappings: string };
  const sources: string[] = [];
  const ownIndex = map.sources.map((source) => {
    const named = relative(PROJECT_ROOT, resolve(dirname(mapFile), source));
    if (named.startsWith('..') || named.startsWith('node_modules/')) return undefined;
    return sources.push(named) - 1;
  });
  const mappings = decode(map.mappings).map((line) => {
    const kept: SourceMapSegment[] = [];
    for (const [column, source, originalLine, originalColumn] of line) {
      const own = source === undefined ? undefined : ownIndex[source];
      if (own !== undefined && originalLine !== undefined && originalColumn !== undefined) {
        kept.push([column, own, originalLine, originalColumn]);
      } else if (kept.at(-1)?.length !== 1) {
        // Node's reader takes the last place at or before a position, on an earlier line too.
        kept.push([column]);
      }
    }
    return kept;
  });
  // Node's reader (20 and 24) takes a one-field place at the very end for a mapped one.
  mappings.push([]);
  writeFileSync(mapFile, JSON.stringify({ version: 3, sources, names: [], mappings: encode(mappings) }));
};

const shellWord = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** A shell command that runs `keepOwnSources` on `mapFile`, from the project root (where tsx resolves). */
export const keepOwnSourcesCommand = (mapFile: string): string => {
  const code = `import { keepOwnSources } from ${JSON.stringify(fileURLToPath(import.meta.url))}; keepOwnSources(process.argv[1]);`;
  return `node --import tsx --input-type=module --eval ${shellWord(code)} ${shellWord(mapFile)}`;
};
