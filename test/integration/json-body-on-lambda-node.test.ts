import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '#infra/bundling';
import { PROJECT_ROOT } from '#infra/project-root';
import { findLambdaNode, installLambdaNode } from '../../bench/lambda-node';

/**
 * The JSON body reader as Lambda runs it: bundled as the stack bundles it, on the Lambda runtime's
 * Node from bench/lambda-node, where `JSON.parse` hands a reviver each number's source text and the
 * body is parsed once (npm start and the unit tests run on Node 20, which reads it once more
 * losslessly: test/unit/request-reading.test.ts holds the same answers there).
 */

const READER = `import { parseJson } from '#shared/http/middleware/json-body';
import { parseGivesNumberSource } from '#shared/http/exact-numbers';
const reader = parseJson();
const parse = JSON.parse;
export const read = async (body) => {
  let parses = 0;
  let revived = false;
  JSON.parse = (...args) => { parses += 1; revived ||= typeof args[1] === 'function'; return parse(...args); };
  const request = { event: { body, headers: { 'content-type': 'application/json' } } };
  try {
    await reader.before(request);
    return { parses, revived, body: request.event.body };
  } catch (error) {
    return { parses, revived, code: error.code, fields: error.details?.map(({ field }) => field) };
  } finally {
    JSON.parse = parse;
  }
};
export const sourceGiven = parseGivesNumberSource();
`;

interface Read {
  readonly parses: number;
  /** Whether JSON.parse was given a reviver: the numbers were judged in that parse. */
  readonly revived: boolean;
  readonly body?: unknown;
  readonly code?: string;
  readonly fields?: string[];
}

let dir: string;
let child: ReturnType<typeof findLambdaNode>;

/** What the bundled reader makes of each body, on the Lambda's Node. */
const readAll = (bodies: readonly string[]): { sourceGiven: boolean; reads: Read[] } => {
  const script = `const { read, sourceGiven } = await import(${JSON.stringify(join(dir, 'reader.mjs'))});
    const reads = [];
    for (const body of ${JSON.stringify(bodies)}) reads.push(await read(body));
    process.stdout.write(JSON.stringify({ sourceGiven, reads }));`;
  const run = spawnSync(child.path, ['--input-type=module', '--eval', script], { encoding: 'utf8', env: {} });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'json-body-'));
  const { entryPoints: _entry, ...options } = esbuildOptions('<entry>', join(dir, 'reader.mjs'));
  await build({
    ...options,
    stdin: { contents: READER, resolveDir: PROJECT_ROOT, loader: 'js', sourcefile: 'reader.js' },
    absWorkingDir: PROJECT_ROOT,
  });
  installLambdaNode(() => undefined);
  child = findLambdaNode();
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a JSON body on the Lambda runtime's Node", () => {
  it('is parsed once, by the one JSON.parse of middy’s parser, its numbers read from their text', () => {
    const { sourceGiven, reads } = readAll(['{"name":"Rex","categoryId":9007199254740991,"a":[1.5,1e2]}']);

    expect(child.lambdaMajor || !child.line.includes('pins no Node binary')).toBe(true);
    expect(sourceGiven).toBe(child.lambdaMajor);
    expect(reads).toEqual([
      {
        parses: 1,
        revived: child.lambdaMajor,
        body: { name: 'Rex', categoryId: 9007199254740991, a: [1.5, 100] },
      },
    ]);
  });

  it('has the numbers a double cannot hold exactly refused, each field named, as on Node 20', () => {
    const { reads } = readAll([
      '{"categoryId":1.0000000000000001}',
      '{"a":{"b":[1,9007199254740993]},"c":1e400,"d":1e-400}',
      '{"categoryId":1.0,"a":1e2,"b":-9007199254740991,"c":0.1,"d":[1.5],"e":9007199254740992}',
    ]);

    expect(reads.map(({ code, fields }) => ({ code, fields }))).toEqual([
      { code: 'VALIDATION_FAILED', fields: ['body.categoryId'] },
      { code: 'VALIDATION_FAILED', fields: ['body.a.b.1', 'body.c', 'body.d'] },
      { code: undefined, fields: undefined },
    ]);
    expect(reads.every(({ parses }) => parses === 1)).toBe(true);
  });

  it('repeating a member name in an object, at any depth, equal values too, is refused naming it, as on Node 20', () => {
    const { reads } = readAll([
      '{"name":"A","name":"B"}',
      '{"categoryId":1.0000000000000001,"categoryId":1}',
      '{"categoryId":1,"categoryId":1}',
      '{"a":[{"b":{"c":1,"c":2}}],"n\\u0061me":1,"name":2}',
      '{"a":{"x":1},"b":{"x":1}}',
    ]);

    expect(reads.map(({ code, fields }) => ({ code, fields }))).toEqual([
      { code: 'VALIDATION_FAILED', fields: ['body.name'] },
      { code: 'VALIDATION_FAILED', fields: ['body.categoryId'] },
      { code: 'VALIDATION_FAILED', fields: ['body.categoryId'] },
      { code: 'VALIDATION_FAILED', fields: ['body.a.0.b.c', 'body.name'] },
      { code: undefined, fields: undefined },
    ]);
    // The names are read from the text, not parsed again: one JSON.parse, of the body, each time.
    expect(reads.every(({ parses }) => parses === 1)).toBe(true);
  });

  it('nested 2,000 deep is refused naming the body, as on Node 20, where its walk overflowed the stack', () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const { reads } = readAll([nested(2_000), `{"a":${'['.repeat(2_000)}${']'.repeat(2_000)}}`]);

    expect(reads.map(({ code, fields }) => ({ code, fields }))).toEqual([
      { code: 'VALIDATION_FAILED', fields: ['body'] },
      { code: 'VALIDATION_FAILED', fields: ['body'] },
    ]);
  });

  it('that is not JSON is INVALID_JSON', () => {
    const { reads } = readAll(['{"name": "Rex",', '{"categoryId":1.0000000000000001']);

    expect(reads.map(({ code }) => code)).toEqual(['INVALID_JSON', 'INVALID_JSON']);
  });
});
