/**
 * A TypeScript client of the pet store, typed from the API's own document: the types in
 * `pet-store-api.d.ts` are generated from docs/openapi.yaml by openapi-typescript
 * (`npm run openapi` regenerates both), and openapi-fetch turns them into a typed `fetch`.
 *
 * It lists every pet by following the `Link` of each page, and adds a pet safely: a create sent
 * with an Idempotency-Key can be retried after a timeout or a 409/429/503 without adding twice.
 *
 *   node --import tsx docs/client/list-and-create.ts <base URL ending in /v1> <API key>
 */
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './pet-store-api';

export type Pet = components['schemas']['Pet'];
export type NewPet = components['schemas']['NewPet'];
export type PetStatus = components['schemas']['PetStatus'];
export type PetStoreClient = Client<paths>;

export const petStoreClient = (baseUrl: string, apiKey: string): PetStoreClient =>
  createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });

/** The cursor of the next page, from `Link: <…>; rel="next"`; none on the last page. */
const nextCursor = (response: Response): string | undefined => {
  const target = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('Link') ?? '')?.[1];
  return target ? (new URL(target, response.url).searchParams.get('cursor') ?? undefined) : undefined;
};

/** Every pet (of one status, if given), page after page, until a page has no next link. */
export async function* allPets(
  client: PetStoreClient,
  options: { readonly status?: PetStatus; readonly limit?: number } = {},
): AsyncGenerator<Pet> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/pets', {
      params: { query: { limit: options.limit ?? 100, status: options.status, cursor } },
    });
    if (error) throw new Error(`GET /pets answered ${error.status} ${error.code}: ${error.message}`);
    yield* data;
    cursor = nextCursor(response);
  } while (cursor);
}

const pause = (seconds: number) => new Promise((done) => setTimeout(done, seconds * 1000));

/**
 * Adds a pet once, however many times the request has to be sent: every attempt carries the
 * same Idempotency-Key, so a retry after a lost answer gets the first 201 back
 * (`Idempotent-Replayed: true`) instead of adding the pet again. Waits as `Retry-After` says
 * on 409 (the first attempt is still running), 429 TOO_MANY_REQUESTS (faster than the key's plan)
 * and 503; gives up at once on 429 QUOTA_EXCEEDED, which lasts until the quota resets (00:00 UTC).
 */
export const createPetOnce = async (
  client: PetStoreClient,
  pet: NewPet,
  options: { readonly key?: string; readonly attempts?: number } = {},
): Promise<{ readonly pet: Pet; readonly replayed: boolean }> => {
  const key = options.key ?? randomUUID();
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt += 1) {
    let retryAfter = 1;
    try {
      const { data, error, response } = await client.POST('/pets', {
        body: pet,
        params: { header: { 'idempotency-key': key } },
      });
      if (data) return { pet: data, replayed: response.headers.get('Idempotent-Replayed') === 'true' };
      const retryable = [409, 429, 503].includes(response.status) && error.code !== 'QUOTA_EXCEEDED';
      if (!retryable || attempt >= attempts) {
        throw new Error(`POST /pets answered ${error.status} ${error.code}: ${error.message}`);
      }
      retryAfter = Number(response.headers.get('Retry-After') ?? 1);
    } catch (failure) {
      // A network failure (no answer at all): the same key makes it safe to send again.
      if (!(failure instanceof TypeError) || attempt >= attempts) throw failure;
    }
    await pause(retryAfter);
  }
};

const USAGE = 'Usage: node --import tsx docs/client/list-and-create.ts <base URL ending in /v1> <API key>';

/** Adds a pet and counts them all; resolves to the exit code, each failure one line on stderr. */
export const main = async (args: readonly string[]): Promise<number> => {
  const [baseUrl, apiKey, ...extra] = args;
  if (!baseUrl || !apiKey || extra.length > 0) {
    console.error(USAGE);
    return 2;
  }
  try {
    const client = petStoreClient(baseUrl, apiKey);
    const { pet, replayed } = await createPetOnce(client, { name: 'Rex', categoryId: 3 });
    console.log(`${replayed ? 'Found' : 'Added'} pet ${pet.id} (${pet.name})`);
    let count = 0;
    for await (const _ of allPets(client)) count += 1;
    console.log(`${count} pets in the store`);
    return 0;
  } catch (error) {
    // An answer of the API (a refused key: 401 UNAUTHORIZED) or no answer at all, in one line.
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message;
    console.error(
      `Failed: ${error instanceof Error ? error.message : String(error)}${why ? ` (${why})` : ''}`,
    );
    return 1;
  }
};

// Run as a script (not imported): the file named on the command line is this one.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
