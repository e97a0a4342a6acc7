import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import type { Pet } from '#shared/domain/pet';
import { remoteTarget, TargetError } from '#tools/api-target';
import { lockDataDir } from '#tools/local/data-dir-lock';
import { freePort } from '#tools/local/dynamodb-local';
import { EXAMPLE_PREFIX } from '#tools/pet-names';
import { EXAMPLE_PETS } from '#tools/seed/example-pets';
import { seedExamplePets, seedKeyOf } from '#tools/seed/seed-pets';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * `npm run seed` against the local server, as an operator runs it on a fresh store, twice, or
 * from two terminals at once: one set of example pets whatever happens.
 */

let api: LocalApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const seed = (args: readonly string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/seed/seed.ts', ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
    }
    child.on('exit', (code) => resolve({ code, output }));
  });

/** Every pet of the store, walking the listing's pages (every response checked against the contract). */
const everyPet = async (local: LocalApi): Promise<Pet[]> => {
  const pets: Pet[] = [];
  let path: string | undefined = '/pets?limit=7';
  while (path) {
    const page = await local.client.get(path);
    expect(page.status).toBe(200);
    pets.push(...(page.json as Pet[]));
    const next = /<\/v1([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    path = next;
  }
  return pets;
};

const exampleNames = (pets: readonly Pet[]) =>
  pets.filter((pet) => pet.name.startsWith(EXAMPLE_PREFIX)).map((pet) => pet.name);

describe('npm run seed', () => {
  it('adds the example pets, and run again adds nothing more: one set', async () => {
    api = await startLocalApi('seed-twice');
    const args = ['--url', api.gateway.baseUrl, '--key', api.apiKey];

    const first = await seed(args);
    const second = await seed(args);

    expect(first.code).toBe(0);
    expect(first.output).toContain(
      `${EXAMPLE_PETS.length} example pets at ${api.gateway.baseUrl}: ${EXAMPLE_PETS.length} created, 0 already there`,
    );
    expect(second.code).toBe(0);
    expect(second.output).toContain(`: 0 created, ${EXAMPLE_PETS.length} already there`);
    expect(second.output).toMatch(/^present {2}#\d+ example-biscuit \(available, category 1\)$/m);
    const pets = await everyPet(api);
    expect(exampleNames(pets).sort()).toEqual(EXAMPLE_PETS.map((pet) => pet.name).sort());
    for (const example of EXAMPLE_PETS) {
      expect(pets.find((pet) => pet.name === example.name)).toMatchObject(example);
    }
  }, 60_000);

  it("finds npm start's port and key in the lock of its data directory, whatever PORT the shell says", async () => {
    api = await startLocalApi('seed-from-lock');
    const dataDir = mkdtempSync(join(tmpdir(), 'petstore-seed-'));
    // This process holds the directory, as npm start would, serving the API on its port.
    const lock = await lockDataDir({ dataDir, port: api.gateway.port, apiKey: api.apiKey, corsOrigins: [] });
    try {
      const { code, output } = await seed([], { PETSTORE_DATA_DIR: dataDir, PORT: String(await freePort()) });

      expect(code).toBe(0);
      expect(output).toContain(
        `${EXAMPLE_PETS.length} example pets at ${api.gateway.baseUrl}: ${EXAMPLE_PETS.length} created`,
      );
    } finally {
      lock.release();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('leaves pets that are not examples alone, and adds the examples beside them', async () => {
    api = await startLocalApi('seed-beside');
    const mine = await api.client.post('/pets', { name: 'Rex', categoryId: 1 });

    const { results } = await seedExamplePets({ baseUrl: api.gateway.baseUrl, apiKey: api.apiKey });

    expect(mine.status).toBe(201);
    expect(results.map((result) => result.outcome)).toEqual(EXAMPLE_PETS.map(() => 'created'));
    const pets = await everyPet(api);
    expect(pets.map((pet) => pet.name)).toContain('Rex');
    expect(pets).toHaveLength(EXAMPLE_PETS.length + 1);
  });

  it('adds one set when two runs start at once: the second is answered from the Idempotency-Keys', async () => {
    api = await startLocalApi('seed-at-once');
    const target = { baseUrl: api.gateway.baseUrl, apiKey: api.apiKey };

    // Both read the empty store before either creates: only the keys keep the repeats out.
    const [one, other] = await Promise.all([seedExamplePets(target), seedExamplePets(target)]);

    const outcomes = [...one.results, ...other.results].map((result) => result.outcome);
    expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(EXAMPLE_PETS.length);
    expect(outcomes.filter((outcome) => outcome === 'replayed')).toHaveLength(EXAMPLE_PETS.length);
    expect(one.results.map((result) => result.pet)).toEqual(other.results.map((result) => result.pet));
    expect(exampleNames(await everyPet(api))).toHaveLength(EXAMPLE_PETS.length);
  }, 60_000);

  it('makes each Idempotency-Key from the pet name, the same in every run', () => {
    expect(EXAMPLE_PETS.map(seedKeyOf)).toEqual(EXAMPLE_PETS.map((pet) => `seed-${pet.name}`));
    expect(new Set(EXAMPLE_PETS.map(seedKeyOf)).size).toBe(EXAMPLE_PETS.length);
  });

  it('refuses a URL that is not an API base URL, or no key, before any request', () => {
    expect(() => remoteTarget('https://api.example.com/pets', 'k')).toThrow(TargetError);
    expect(() => remoteTarget('https://api.example.com/v1/', undefined)).toThrow(/No API key/);
    expect(remoteTarget('https://api.example.com/v1/', 'k')).toEqual({
      baseUrl: 'https://api.example.com/v1',
      apiKey: 'k',
    });
  });
});
