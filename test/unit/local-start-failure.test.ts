import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { LocalConfigError } from '#tools/local/settings';
import { describeStartFailure } from '#tools/local/start-failure';

/**
 * The one line `npm start` and `npm run dev` print when they cannot start. Compile errors are
 * real ones: esbuild's own (what tsx compiles with), and the same error as it reaches the process
 * from Node's module loader, which runs tsx on a thread of its own.
 */

/** A Node process loading tsx and a module: a few hundred ms idle, seconds on a busy machine. */
const SPAWN_BUDGET_MS = 60_000;

const work = mkdtempSync(join(tmpdir(), 'petstore-start-failure-'));
// Modules, as the project's are: ESM.
writeFileSync(join(work, 'package.json'), '{ "type": "module" }\n');
// Modules of the project's own, in its git-ignored build directory: their places are shown relative.
mkdirSync(join(PROJECT_ROOT, '.build'), { recursive: true });
const inProject = mkdtempSync(join(PROJECT_ROOT, '.build', 'start-failure-'));
writeFileSync(join(inProject, 'package.json'), '{ "type": "module" }\n');
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(inProject, { recursive: true, force: true });
});

/** A module written to `dir` under `name`, imported in this process. */
const imported = async (dir: string, name: string, source: string): Promise<Record<string, unknown>> => {
  const file = join(dir, name);
  writeFileSync(file, source);
  return import(pathToFileURL(file).href);
};

/** What `act` throws or rejects with. */
const failureOf = async (act: () => unknown): Promise<unknown> => {
  try {
    await act();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
};

const failureOfSync = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
};

/** esbuild's rejection of `source`, compiled as TypeScript from `file`. */
const compiled = (source: string, file: string): Promise<unknown> =>
  failureOf(() => transform(source, { loader: 'ts', sourcefile: file }));

/** The same failure as tsx's thread hands it to the importing code: only a name and esbuild's message. */
const throughTheLoader = (error: unknown): Error =>
  Object.assign(new Error((error as Error).message), { name: 'TransformError' });

/** What importing `source` (a TypeScript module written to a file) through tsx fails with, described. */
const describedImportOf = async (source: string): Promise<string> => {
  const file = join(work, `module-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, source);
  const script = [
    `const { describeStartFailure } = await import(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'tools/local/start-failure.ts')).href)});`,
    `try { await import(${JSON.stringify(pathToFileURL(file).href)}); console.log('loaded'); }`,
    'catch (error) { console.log(describeStartFailure(error)); }',
  ].join('\n');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  return stdout.trim();
};

describe('why npm start could not start, in one line', () => {
  it('is the sentence of a setting that cannot work', () => {
    expect(
      describeStartFailure(new LocalConfigError('PORT must be a port number (0 to 65535), not "x"')),
    ).toBe('PORT must be a port number (0 to 65535), not "x"');
  });

  it('names the file, line, column and message of a TypeScript file that does not compile', async () => {
    const error = await transform('export const broken = (;', {
      loader: 'ts',
      sourcefile: join(PROJECT_ROOT, 'shared/x.ts'),
    }).catch((caught: unknown) => caught);

    expect(describeStartFailure(error)).toBe('shared/x.ts:1:24 does not compile: Unexpected ";"');
  });

  // The two cases that start a process (tsx) run side by side.
  it.concurrent(
    'says so, and no more, of the error as tsx reports it through the module loader',
    async ({ expect }) => {
      expect(await describedImportOf('export const broken = (;\n')).toMatch(
        /^\/.*\/module-\w+\.ts:1:24 does not compile: Unexpected ";"$/,
      );
    },
    SPAWN_BUDGET_MS,
  );

  it.concurrent(
    'names where an import names nothing the module exports',
    async ({ expect }) => {
      const target = join(work, 'exports.ts');
      writeFileSync(target, 'export const something = 1;\n');

      expect(
        await describedImportOf(
          `import { nothing } from ${JSON.stringify(target)};\nexport const x = nothing;\n`,
        ),
      ).toMatch(
        /^\/.*\/module-\w+\.ts:1: SyntaxError: The requested module '.*exports\.ts' does not provide an export named 'nothing'$/,
      );
    },
    SPAWN_BUDGET_MS,
  );

  it('is the first line of any other failure, without where it was thrown', () => {
    const error = new Error('DynamoDB Local exited with 2: Invalid Port.\nmore');

    expect(describeStartFailure(error)).toBe('DynamoDB Local exited with 2: Invalid Port.');
  });

  it('counts the compile errors after the first, one and more', async () => {
    const file = join(work, 'twice.ts');
    const two = await compiled('let a; let a;\nlet b; let b;\n', file);
    const three = await compiled('let a; let a;\nlet b; let b;\nlet c; let c;\n', file);

    expect(describeStartFailure(two)).toBe(
      `${file}:1:12 does not compile: The symbol "a" has already been declared (and 1 more error)`,
    );
    expect(describeStartFailure(three)).toBe(
      `${file}:1:12 does not compile: The symbol "a" has already been declared (and 2 more errors)`,
    );
  });

  it('reads the same file, line, column and count from the message Node’s module loader passes on', async () => {
    const file = join(work, 'late.ts');
    const source = `${'\n'.repeat(11)}let a; let a;\n${' '.repeat(30)}let b; let b;\n`;

    expect(describeStartFailure(throughTheLoader(await compiled(source, file)))).toBe(
      `${file}:12:12 does not compile: The symbol "a" has already been declared (and 1 more error)`,
    );
    expect(
      describeStartFailure(
        throughTheLoader(await compiled('export const broken = (;', join(PROJECT_ROOT, 'shared/x.ts'))),
      ),
    ).toBe('shared/x.ts:1:24 does not compile: Unexpected ";"');
  });

  it('says "a source file" when the compiler names no place', async () => {
    const missing = join(work, 'missing.ts');
    const unresolved = await failureOf(() =>
      build({ entryPoints: [missing], write: false, logLevel: 'silent' }),
    );

    expect(describeStartFailure(unresolved)).toBe(
      `a source file does not compile: Could not resolve "${missing}"`,
    );
    expect(
      describeStartFailure(
        Object.assign(new Error('Transform failed: no input\nmore'), { name: 'TransformError' }),
      ),
    ).toBe('a source file does not compile: Transform failed: no input');
  });

  it('is the first line of an error that carries errors of another kind', async () => {
    const refused = await failureOf(() => Promise.any([Promise.reject(new Error('ECONNREFUSED'))]));
    const mixed = new AggregateError(
      [{ text: 'a compile message', location: null }, new Error('b')],
      'two\nlines',
    );

    expect(describeStartFailure(refused)).toBe('All promises were rejected');
    expect(describeStartFailure(mixed)).toBe('two');
    expect(describeStartFailure(new AggregateError([], 'none'))).toBe('none');
    expect(describeStartFailure(new AggregateError([null], 'a null'))).toBe('a null');
  });

  it('names where a mistake in the code of a module outside the project is, by its absolute path', async () => {
    const { run } = await imported(work, 'undefined-call.js', 'export const run = () => missing();\n');

    expect(describeStartFailure(await failureOf(run as () => unknown))).toBe(
      `${join(work, 'undefined-call.js')}:1:26: ReferenceError: missing is not defined`,
    );
  });

  it('names where a mistake in a project file is, relative to the project, past the dependency it called', async () => {
    const dependency = join(inProject, 'node_modules', 'dep');
    mkdirSync(dependency, { recursive: true });
    writeFileSync(join(dependency, 'package.json'), '{ "type": "module", "main": "index.js" }\n');
    writeFileSync(join(dependency, 'index.js'), 'export const call = (value) => value.nope();\n');
    const { run } = await imported(
      inProject,
      'calls-dependency.js',
      'import { call } from "dep";\n\nexport const run = () => call(undefined);\n',
    );
    const error = await failureOf(run as () => unknown);

    expect((error as Error).stack).toContain('/node_modules/dep/index.js:1:');
    expect(describeStartFailure(error)).toBe(
      `${relative(PROJECT_ROOT, inProject)}/calls-dependency.js:3:26: TypeError: Cannot read properties of undefined (reading 'nope')`,
    );
  });

  it('names the line, from the file:// URL Node’s loader gives, of an import that names nothing', async () => {
    // Loaded by Node itself (a dependency's import), as npm start loads the project's modules.
    const loader = join(work, 'node_modules', 'loader');
    mkdirSync(loader, { recursive: true });
    writeFileSync(join(loader, 'package.json'), '{ "type": "module", "main": "index.js" }\n');
    writeFileSync(join(loader, 'index.js'), 'export const load = (url) => import(url);\n');
    writeFileSync(join(work, 'exported.js'), 'export const something = 1;\n');
    writeFileSync(
      join(work, 'imports-nothing.js'),
      'import { nothing } from "./exported.js";\nexport const x = nothing;\n',
    );
    const { load } = await imported(work, 'loads.js', 'export { load } from "loader";\n');

    const error = await failureOf(() =>
      (load as (url: string) => Promise<unknown>)(pathToFileURL(join(work, 'imports-nothing.js')).href),
    );

    expect((error as Error).stack).toMatch(/^file:\/\//);
    expect(describeStartFailure(error)).toBe(
      `${join(work, 'imports-nothing.js')}:1: SyntaxError: The requested module './exported.js' does not provide an export named 'nothing'`,
    );
  });

  it('does not take a place inside Node itself for one in the code', () => {
    const error = failureOfSync(() => new URL('not a url'));

    expect((error as Error).stack).toContain('node:internal/');
    expect(describeStartFailure(error)).toMatch(
      /^test\/unit\/local-start-failure\.test\.ts:\d+:\d+: TypeError: Invalid URL$/,
    );
  });

  it('is the first line alone of an error that is no mistake in the code, wherever it was thrown', async () => {
    const { run } = await imported(
      work,
      'throws.js',
      'export const run = () => { throw new RangeError("too far\\nmore"); };\n',
    );

    expect(describeStartFailure(await failureOf(run as () => unknown))).toBe('too far');
    expect(describeStartFailure(Object.assign(new TypeError('no stack'), { stack: undefined }))).toBe(
      'no stack',
    );
    expect(
      describeStartFailure(Object.assign(new TypeError('nowhere'), { stack: 'TypeError: nowhere' })),
    ).toBe('nowhere');
  });

  it('shows a thrown value that is not an Error as it is', () => {
    expect(describeStartFailure('a string')).toBe('a string');
    expect(describeStartFailure(42)).toBe('42');
    expect(describeStartFailure(null)).toBe('null');
    expect(describeStartFailure(undefined)).toBe('undefined');
    expect(describeStartFailure({ name: 'TransformError', message: 'x.ts:1:1: ERROR: y' })).toBe(
      '[object Object]',
    );
    expect(describeStartFailure({ errors: [{ text: 'y', location: null }] })).toBe(
      'a source file does not compile: y',
    );
  });
});
