import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';

describe('docs/client/pet-store-api.d.ts', () => {
  it('is exactly what openapi-typescript makes of docs/openapi.yaml (run `npm run openapi` when this fails)', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'petstore-client-types-'));
    try {
      const output = join(directory, 'pet-store-api.d.ts');
      await promisify(execFile)(
        process.execPath,
        [
          join(PROJECT_ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
          'docs/openapi.yaml',
          '--redocly',
          'tools/openapi/client-types.redocly.yaml',
          '-o',
          output,
        ],
        { cwd: PROJECT_ROOT },
      );

      expect(await readFile(output, 'utf8')).toBe(
        await readFile(join(PROJECT_ROOT, 'docs/client/pet-store-api.d.ts'), 'utf8'),
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
    // openapi-typescript in a process of its own: 2 s with a load average of 6, over 5 s (the
    // default) with a busy loop and the rest of the run beside it.
  }, 60_000);
});
