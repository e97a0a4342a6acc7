import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { allPets, createPetOnce, type Pet, petStoreClient } from '../../docs/client/list-and-create';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * The typed client example of docs/client/ (compiled with the rest by `npm run check`), run
 * against the local server as a TypeScript user would run it.
 */

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi('typed-client');
});
afterAll(() => api.close());

const collect = async (pets: AsyncIterable<Pet>) => {
  const all: Pet[] = [];
  for await (const pet of pets) all.push(pet);
  return all;
};

describe('the typed client example', () => {
  it('adds a pet once with an Idempotency-Key: a retry gets the same pet back, replayed', async () => {
    const client = petStoreClient(api.gateway.baseUrl, api.apiKey);
    const key = 'typed-client-once';

    const first = await createPetOnce(client, { name: 'Typed', categoryId: 2, status: 'pending' }, { key });
    const retry = await createPetOnce(client, { name: 'Typed', categoryId: 2, status: 'pending' }, { key });

    expect(first).toEqual({
      pet: { id: expect.any(Number), name: 'Typed', categoryId: 2, status: 'pending' },
      replayed: false,
    });
    expect(retry).toEqual({ pet: first.pet, replayed: true });
  });

  it('lists every pet by following the pages, each once', async () => {
    const client = petStoreClient(api.gateway.baseUrl, api.apiKey);
    const created = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        createPetOnce(client, { name: `Paged ${index}`, categoryId: 1 }),
      ),
    );

    const listed = await collect(allPets(client, { limit: 2 }));
    const available = await collect(allPets(client, { status: 'available', limit: 2 }));

    const ids = listed.map((pet) => pet.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(created.map(({ pet }) => pet.id)));
    expect(available.map((pet) => pet.id)).toEqual(created.map(({ pet }) => pet.id).sort((a, b) => a - b));
  });

  /**
   * The example as a reader runs it: `node --import tsx docs/client/list-and-create.ts …`, its exit
   * code and output. (Not spawnSync: the server it calls runs in this process.)
   */
  const run = async (...args: string[]) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'docs/client/list-and-create.ts', ...args], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [status] = (await once(child, 'close')) as [number | null];
    return { status, stdout, stderr };
  };

  it('adds a pet and counts them when run with a base URL and a key', async () => {
    const result = await run(api.gateway.baseUrl, api.apiKey);

    expect([result.status, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toMatch(/^Added pet \d+ \(Rex\)\n\d+ pets in the store\n$/);
  });

  it('prints its usage, and fails, when run without its arguments', async () => {
    const result = await run();

    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'Usage: node --import tsx docs/client/list-and-create.ts <base URL ending in /v1> <API key>\n',
    );
  });

  it('says in one line that the key was refused', async () => {
    const result = await run(api.gateway.baseUrl, 'psk_refused');

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'Failed: POST /pets answered 401 UNAUTHORIZED: A valid API key is required: send "Authorization: Bearer <key>"\n',
    );
  });
});
