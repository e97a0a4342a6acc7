import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
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
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What importing `source` (a TypeScript module written to a file) through tsx fails with, described. */
const describedImportOf = (source: string): string => {
  const file = join(work, `module-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, source);
  const script = [
    `const { describeStartFailure } = await import(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'tools/local/start-failure.ts')).href)});`,
    `try { await import(${JSON.stringify(pathToFileURL(file).href)}); console.log('loaded'); }`,
    'catch (error) { console.log(describeStartFailure(error)); }',
  ].join('\n');
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  return child.stdout.trim();
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

  it(
    'says so, and no more, of the error as tsx reports it through the module loader',
    () => {
      expect(describedImportOf('export const broken = (;\n')).toMatch(
        /^\/.*\/module-\w+\.ts:1:24 does not compile: Unexpected ";"$/,
      );
    },
    SPAWN_BUDGET_MS,
  );

  it(
    'names where an import names nothing the module exports',
    () => {
      const target = join(work, 'exports.ts');
      writeFileSync(target, 'export const something = 1;\n');

      expect(
        describedImportOf(`import { nothing } from ${JSON.stringify(target)};\nexport const x = nothing;\n`),
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
});
