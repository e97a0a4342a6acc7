import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import setup from '../support/temp-dir-global-setup';

/**
 * The run's temporary directory (test/support/temp-dir-global-setup.ts), set up and torn down as a
 * run of its own would, around a temporary directory given to it, and the check `npm test` runs beside
 * the tests: what they leave there is what someone who runs `npm test` with a TMPDIR of their own finds.
 */

const SHARED = Symbol.for('pet-store.test.temp-dir');
const registry = globalThis as typeof globalThis & { [SHARED]?: unknown };

const given = { TMPDIR: process.env.TMPDIR, shared: registry[SHARED] };
const outside: string[] = [];

afterEach(() => {
  process.env.TMPDIR = given.TMPDIR;
  registry[SHARED] = given.shared;
  for (const dir of outside.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("a run's temporary directory", () => {
  it('leaves the temporary directory it was given as it found it, tsx’s compile cache included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'given-tmpdir-'));
    outside.push(dir);
    delete registry[SHARED];
    process.env.TMPDIR = dir;

    const teardown = setup();
    const during = readdirSync(dir);
    teardown();

    expect(during).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
    expect(process.env.TMPDIR).toBe(dir);
  });

  it('is left as it was by the way npm run check:openapi runs TypeScript with tsx, which npm test runs too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'given-tmpdir-'));
    const work = mkdtempSync(join(tmpdir(), 'check-script-'));
    outside.push(dir, work);
    const script = join(work, 'check.ts');
    writeFileSync(script, "const checked: string = 'checked';\nconsole.log(checked);\n");
    const { scripts } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const [command, ...args] = (scripts['check:openapi'] ?? '').split(' ');

    // The same command and options, on a file of its own rather than the whole check.
    const executable =
      command === 'node' ? process.execPath : join(PROJECT_ROOT, 'node_modules', '.bin', String(command));
    const output = execFileSync(executable, [...args.slice(0, -1), script], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, TMPDIR: dir },
      encoding: 'utf8',
    });

    expect(output).toBe('checked\n');
    expect(readdirSync(dir)).toEqual([]);
  });
});
