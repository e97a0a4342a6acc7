import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapping } from 'node:module';

/** A logged error's stack in the sources (docs/decisions/0002-no-runtime-source-maps.md). */

/** A frame's file and place: `at f (file:///var/task/index.mjs:2:24089)`, `at async /var/task/index.mjs:2:6541`. */
const FRAME = /^(\s*at (?:async )?(?:.*\()?)((?:file:\/\/)?\/[^\s()]+):(\d+):(\d+)(\)?)$/gm;

const maps = new Map<string, SourceMap | undefined>();

const mapOf = (file: string): SourceMap | undefined => {
  if (!maps.has(file)) {
    try {
      const mapFile = file.startsWith('file:') ? new URL(`${file}.map`) : `${file}.map`;
      maps.set(file, new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))));
    } catch {
      maps.set(file, undefined);
    }
  }
  return maps.get(file);
};

export const stackInSources = (stack: string): string =>
  stack.replace(FRAME, (frame, at: string, file: string, line: string, column: string, end: string) => {
    // V8 counts lines and columns from 1, source maps from 0.
    const { originalSource, originalLine, originalColumn }: Partial<SourceMapping> =
      mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1) ?? {};
    if (originalSource === undefined || originalLine === undefined || originalColumn === undefined)
      return frame;
    return `${at}${originalSource}:${originalLine + 1}:${originalColumn + 1}${end}`;
  });

/** `error` with its and its causes' stacks in the sources, in place, for a log line (Powertools takes `location` from it). */
export const inSources = <T>(error: T): T => {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 10; depth++) {
    try {
      if (typeof cause.stack === 'string') cause.stack = stackInSources(cause.stack);
    } catch {
      // Never a second failure while reporting the first.
    }
    cause = cause.cause;
  }
  return error;
};
