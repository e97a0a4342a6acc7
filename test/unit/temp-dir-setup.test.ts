import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import setup from '../support/temp-dir-global-setup';

/**
 * The run's temporary directory (test/support/temp-dir-global-setup.ts), set up and torn down as a
 * run of its own would, around a temporary directory given to it: what a run leaves there is what
 * someone who runs `npm test` with a TMPDIR of their own finds after it.
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
});
