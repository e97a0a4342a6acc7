import { setTimeout as sleep } from 'node:timers/promises';
import type { NewPet, Pet } from '#shared/domain/pet';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '#shared/http/idempotency-headers';
import type { ApiTarget } from '#tools/api-target';
import { EXAMPLE_PREFIX } from '#tools/pet-names';
import { EXAMPLE_PETS } from '#tools/seed/example-pets';

/** Adds each missing example pet with an `Idempotency-Key` of its name: once, however run (within 24 h). */

/** Pages of 100 pets read to find the examples already there: 5,000 pets, 25 read units at most. */
export const SCAN_PAGES = 50;

/** Times a request answered "not now" (409 in use, 429, 503) is tried again, after its Retry-After. */
const RETRIES = 5;

export interface SeedResult {
  readonly pet: Pet;
  /** Created now; answered from an earlier run's Idempotency-Key; or found in the store. */
  readonly outcome: 'created' | 'replayed' | 'present';
}

export interface SeedReport {
  readonly results: readonly SeedResult[];
  /** If not, only the Idempotency-Keys kept repeats out. */
  readonly storeReadWhole: boolean;
}

export class SeedError extends Error {
  override readonly name = 'SeedError';
}

/** The Idempotency-Key of an example pet: the same in every run, on every stage. */
export const seedKeyOf = (pet: Pick<NewPet, 'name'>): string => `seed-${pet.name}`;

const authorized = (target: ApiTarget, extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${target.apiKey}`,
  ...extra,
});

const nextPage = (target: ApiTarget, link: string | null): string | undefined => {
  const path = /<([^>]+)>;\s*rel="next"/.exec(link ?? '')?.[1];
  return path ? new URL(path, target.baseUrl).href : undefined;
};

const examplesInStore = async (target: ApiTarget): Promise<{ found: Map<string, Pet>; whole: boolean }> => {
  const found = new Map<string, Pet>();
  let url: string | undefined = `${target.baseUrl}/pets?limit=100`;
  for (let page = 0; url && page < SCAN_PAGES; page++) {
    const response = await send(url, { headers: authorized(target) });
    if (response.status !== 200) throw await refusal('GET /pets', response);
    for (const pet of (await response.json()) as Pet[]) {
      if (pet.name.startsWith(EXAMPLE_PREFIX) && !found.has(pet.name)) found.set(pet.name, pet);
    }
    url = nextPage(target, response.headers.get('link'));
  }
  return { found, whole: url === undefined };
};

const send = async (url: string, init: RequestInit): Promise<Response> => {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    if (![409, 429, 503].includes(response.status) || attempt === RETRIES) return response;
    await response.body?.cancel();
    await sleep(Number(response.headers.get('retry-after') ?? 1) * 1_000);
  }
};

const refusal = async (request: string, response: Response): Promise<SeedError> =>
  new SeedError(`${request} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);

const create = async (target: ApiTarget, pet: NewPet): Promise<SeedResult> => {
  const response = await send(`${target.baseUrl}/pets`, {
    method: 'POST',
    headers: authorized(target, {
      'Content-Type': 'application/json',
      [IDEMPOTENCY_KEY_HEADER]: seedKeyOf(pet),
    }),
    body: JSON.stringify(pet),
  });
  if (response.status !== 201) throw await refusal(`POST /pets (${pet.name})`, response);
  const replayed = response.headers.get(IDEMPOTENT_REPLAYED_HEADER) === 'true';
  return { pet: (await response.json()) as Pet, outcome: replayed ? 'replayed' : 'created' };
};

export const seedExamplePets = async (
  target: ApiTarget,
  pets: readonly NewPet[] = EXAMPLE_PETS,
): Promise<SeedReport> => {
  const { found, whole } = await examplesInStore(target);
  const results: SeedResult[] = [];
  for (const pet of pets) {
    const present = found.get(pet.name);
    results.push(present ? { pet: present, outcome: 'present' } : await create(target, pet));
  }
  return { results, storeReadWhole: whole };
};
