import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';

/** The run's own temporary directory, what TMPDIR was before it, and how many projects still run. */
interface SharedTempDir {
  readonly dir: string;
  readonly previous: string | undefined;
  users: number;
}

// Vitest runs each project's global setup in its own module instance, in one process: the
// instance is shared through the global object (as dynamodb-global-setup.ts does).
const SHARED = Symbol.for('pet-store.test.temp-dir');
const registry = globalThis as typeof globalThis & { [SHARED]?: SharedTempDir };

/**
 * tsx's compile cache (`tsx-<uid>` in the temporary directory, tsx's own name): a link to one kept
 * with the project's other caches (node_modules/.cache), so the processes the tests start with tsx
 * keep reusing what earlier runs compiled, and the run leaves nothing in the temporary directory.
 */
const TSX_CACHE = `tsx-${process.geteuid?.() ?? process.env.USER ?? 'user'}`;
const KEPT_TSX_CACHE = join(PROJECT_ROOT, 'node_modules', '.cache', TSX_CACHE);

const create = (): SharedTempDir => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-test-run-'));
  mkdirSync(KEPT_TSX_CACHE, { recursive: true });
  symlinkSync(KEPT_TSX_CACHE, join(dir, TSX_CACHE));
  const previous = process.env.TMPDIR;
  // Read by os.tmpdir() at each call, here and in every worker and process started from now on.
  process.env.TMPDIR = dir;
  return { dir, previous, users: 0 };
};

/**
 * Every project runs in one temporary directory of the run's own (TMPDIR, for the test workers and
 * every process they start), so that what a test leaves there is seen, and no other run on the
 * machine is mistaken for it. When the last project ends (its global setups, listed after this
 * one, already torn down), whatever is left but tsx's cache fails the run, named, and goes.
 */
export default function setup() {
  registry[SHARED] ??= create();
  const shared = registry[SHARED];
  shared.users += 1;
  return () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete registry[SHARED];
    if (shared.previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = shared.previous;
    const left = readdirSync(shared.dir).filter((name) => name !== TSX_CACHE);
    rmSync(shared.dir, { recursive: true, force: true });
    if (left.length > 0) {
      // A teardown's error is only logged: the exit code is what fails the run.
      process.exitCode = 1;
      console.error(
        `\nThe tests left ${left.length} entries in the temporary directory (removed now): ${left.sort().join(', ')}. ` +
          'A test that makes a file or directory there removes it when done.\n',
      );
    }
  };
}
