import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encode } from '@jridgewell/sourcemap-codec';
import { afterAll, describe, expect, it } from 'vitest';
import { inSources, stackInSources } from '#shared/observability/source-stack';

/**
 * A bundle's logged stack in the sources: each test writes its own bundle name and map (the maps
 * are read once per file and process, so no two tests share a file).
 */

const dirs: string[] = [];
// After the file: its maps stay cached by path in this process, so no later test may reuse a path.
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `bundle.mjs` with a map beside it: line 1, columns 11 to 30 (counted from 1), come from shared/a.ts:5:3. */
const bundleWithMap = (map: string = mapOfLineOne()) => {
  const dir = mkdtempSync(join(tmpdir(), 'source-stack-'));
  dirs.push(dir);
  const file = join(dir, 'bundle.mjs');
  writeFileSync(file, '');
  writeFileSync(`${file}.map`, map);
  return { dir, file, url: pathToFileURL(file).href };
};

const mapOfLineOne = () =>
  JSON.stringify({
    version: 3,
    sources: ['shared/a.ts'],
    names: [],
    // Zero-based: columns 0 to 9 unmapped, 10 to 29 from line 4, column 2, then unmapped again;
    // and an empty line, as infra/own-sources-map.ts writes it for Node's reader.
    mappings: encode([[[0], [10, 0, 4, 2], [30]], []]),
  });

const stackOf = (url: string, path: string, dir: string) =>
  [
    'Error: boom',
    `    at f (${url}:1:15)`,
    `    at async ${path}:1:12`,
    `    at g (${url}:1:31)`,
    '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    `    at h (${join(dir, 'other.mjs')}:1:15)`,
    '    at async Promise.all (index 0)',
  ].join('\n');

describe('a logged stack in the sources', () => {
  it('names the source file, line and column of each place the map beside its file knows', () => {
    const { dir, file, url } = bundleWithMap();

    const mapped = stackInSources(stackOf(url, file, dir)).split('\n');

    expect(mapped.slice(0, 3)).toEqual([
      'Error: boom',
      '    at f (shared/a.ts:5:3)',
      '    at async shared/a.ts:5:3',
    ]);
  });

  it('leaves the places the map leaves unmapped, files without a map and Node’s own frames as they are', () => {
    const { dir, file, url } = bundleWithMap();
    const stack = stackOf(url, file, dir);

    const mapped = stackInSources(stack).split('\n');

    expect(mapped.slice(3)).toEqual(stack.split('\n').slice(3));
  });

  it('reads a file’s map once, at its first stack', () => {
    const { dir, file, url } = bundleWithMap();
    const first = stackInSources(stackOf(url, file, dir));

    writeFileSync(`${file}.map`, 'no longer a map');

    expect(stackInSources(stackOf(url, file, dir))).toBe(first);
  });

  it('leaves a stack as it is when its map cannot be read', () => {
    const { dir, file, url } = bundleWithMap('{"version": 3, "mappings": ');
    const stack = stackOf(url, file, dir);

    expect(stackInSources(stack)).toBe(stack);
  });
});

describe('an error, for a log line', () => {
  it('has its stack and its causes’ rewritten in place', () => {
    const { dir, file, url } = bundleWithMap();
    const error = new Error('outer', { cause: new Error('inner') });
    error.stack = stackOf(url, file, dir);
    (error.cause as Error).stack = stackOf(url, file, dir);

    const logged = inSources(error);

    expect(logged).toBe(error);
    expect(error.stack).toContain('at f (shared/a.ts:5:3)');
    expect((error.cause as Error).stack).toContain('at f (shared/a.ts:5:3)');
  });

  it('is logged as it is when its stack cannot be rewritten, and never fails', () => {
    const { dir, file, url } = bundleWithMap();
    const error = new Error('frozen');
    // A read-only data property: freezing alone does not do it on Node 24 (the Lambda's), whose
    // `stack` is an accessor that stays writable on a frozen error.
    Object.defineProperty(error, 'stack', { value: stackOf(url, file, dir), writable: false });
    Object.freeze(error);

    expect(inSources(error).stack).toBe(stackOf(url, file, dir));
    expect(inSources('not an error')).toBe('not an error');
  });
});
