import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import { PET_STATUSES, type Pet } from '#shared/domain/pet';
import type { ObservedExchange } from '#tools/contract/api-client';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * Walks over catalogues whose content is known (57 and 250 pets), which only the local server can
 * guarantee: every pet exactly once, exact page sizes. Bad cursors and the walks that hold on any
 * stage are in the contract suite (tools/contract/pagination.ts).
 */

let small: LocalApi;
let large: LocalApi;

interface Walk {
  readonly pages: Pet[][];
  readonly links: string[];
}

/** The path a Link header points to, below the base URL the client was given (`…/v1`). */
const linkTarget = (response: ObservedExchange): string | undefined => {
  const link = response.headers.get('link');
  if (link === null) return undefined;
  const target = /^<\/v1(\/pets\?[^>]+)>; rel="next"$/.exec(link)?.[1];
  if (!target) throw new Error(`Not a next link: ${link}`);
  return target;
};

/** Every page from `first` on, following Link until a page has none. */
const walk = async (api: LocalApi, first: string): Promise<Walk> => {
  const pages: Pet[][] = [];
  const links: string[] = [];
  let path: string | undefined = first;
  while (path) {
    const response = await api.client.get(path);
    expect(response.status).toBe(200);
    pages.push(response.json as Pet[]);
    path = linkTarget(response);
    if (path) links.push(path);
    if (pages.length > 100) throw new Error('The walk does not end');
  }
  return { pages, links };
};

const ids = (pets: readonly Pet[]) => pets.map((pet) => pet.id);
const ascending = (values: readonly number[]) => [...values].sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
/** The documented order of a listing by status: shard by shard (id mod 16), ascending id within each. */
const shardOrder = (values: readonly number[]) => [...values].sort((a, b) => (a % 16) - (b % 16) || a - b);

/** Writes pets with ids 1..count straight to the API's table, 25 to a call: they are only read here. */
const seed = async (api: LocalApi, count: number, statusOf: (id: number) => Pet['status']) => {
  const client = createLocalClient(api.tables.endpoint);
  try {
    const batches = Array.from({ length: Math.ceil(count / 25) }, (_, batch) =>
      range(batch * 25 + 1, Math.min(count, batch * 25 + 25)).map((id) => ({
        PutRequest: { Item: petItem({ id, name: `Pet ${id}`, categoryId: 1, status: statusOf(id) }) },
      })),
    );
    await Promise.all(
      batches.map(async (requests) => {
        let pending: unknown[] = requests;
        while (pending.length > 0) {
          const { UnprocessedItems } = await documentClientOf(client).send(
            new BatchWriteCommand({ RequestItems: { [api.tables.names.pets]: pending as never } }),
          );
          pending = UnprocessedItems?.[api.tables.names.pets] ?? [];
        }
      }),
    );
  } finally {
    client.destroy();
  }
};

beforeAll(async () => {
  [small, large] = await Promise.all([startLocalApi('pages-57'), startLocalApi('pages-250')]);
  await Promise.all([
    // 57 pets, 20 of them pending: id % 3 === 1, and 57.
    seed(small, 57, (id) => (id % 3 === 1 || id === 57 ? 'pending' : id % 3 === 2 ? 'available' : 'sold')),
    // 250 pets, the statuses in turn.
    seed(large, 250, (id) => PET_STATUSES[id % 3] as Pet['status']),
  ]);
});
afterAll(() => Promise.all([small.close(), large.close()]));

// Independent read-only walks: run side by side.
describe.concurrent('following Link from GET /v1/pets', () => {
  it('returns each of 57 pets once in six pages of at most 10 (limit=10)', async () => {
    const { pages } = await walk(small, '/pets?limit=10');

    expect(pages.map((page) => page.length)).toEqual([10, 10, 10, 10, 10, 7]);
    expect(ascending(pages.flatMap(ids))).toEqual(range(1, 57));
  });

  it('walks the 20 pending pets shard by shard (id mod 16), ascending id within each, over pages of 7, 7 and 6', async () => {
    const { pages } = await walk(small, '/pets?status=pending&limit=7');

    expect(pages.map(ids)).toEqual([
      [16, 1, 49, 34, 19, 4, 52],
      [37, 22, 7, 55, 40, 25, 57],
      [10, 43, 28, 13, 46, 31],
    ]);
    expect(pages.flat().every((pet) => pet.status === 'pending')).toBe(true);
  });

  it('visits every one of 250 pets exactly once without a status', async () => {
    const { pages } = await walk(large, '/pets?limit=30');

    expect(pages.map((page) => page.length)).toEqual([30, 30, 30, 30, 30, 30, 30, 30, 10]);
    expect(ascending(pages.flatMap(ids))).toEqual(range(1, 250));
  });

  it.each(PET_STATUSES)('visits every %s pet of 250 exactly once, shard by shard', async (status) => {
    const expected = shardOrder(range(1, 250).filter((id) => PET_STATUSES[id % 3] === status));

    const { pages } = await walk(large, `/pets?status=${status}&limit=25`);

    expect(pages.flatMap(ids)).toEqual(expected);
    expect(pages.slice(0, -1).every((page) => page.length === 25)).toBe(true);
  });

  it('keeps status and limit in every link and adds a cursor', async () => {
    const { links } = await walk(small, '/pets?status=pending&limit=7');

    expect(links).toHaveLength(2);
    for (const link of links) {
      const query = new URLSearchParams(link.split('?')[1]);
      expect([...query.keys()]).toEqual(['status', 'limit', 'cursor']);
      expect(query.get('status')).toBe('pending');
      expect(query.get('limit')).toBe('7');
    }
  });

  it('sends no Link when everything fits on the first page, nor when the last page is exactly full', async () => {
    const all = await small.client.get('/pets?limit=100');
    const exact = await walk(small, '/pets?status=pending&limit=10');

    expect(all.headers.get('link')).toBeNull();
    expect(exact.pages.map((page) => page.length)).toEqual([10, 10]);
  });

  it('lets a client change limit between pages, never losing its place', async () => {
    const first = await small.client.get('/pets?status=pending&limit=7');
    const next = (linkTarget(first) ?? '').replace('limit=7', 'limit=3');

    const second = await small.client.get(next);

    expect(second.status).toBe(200);
    expect(ids(second.json as Pet[])).toEqual([37, 22, 7]);
    expect(linkTarget(second)).toContain('limit=3');
  });
});

describe('the last page', () => {
  it('is empty when the pets that followed the page before were removed before its link was followed', async () => {
    const api = await startLocalApi('pages-removed');
    try {
      const created: number[] = [];
      for (const name of ['first', 'second', 'third']) {
        created.push(((await api.client.post('/pets', { name, categoryId: 1 })).json as Pet).id);
      }
      const first = await api.client.get('/pets?limit=2');
      const next = linkTarget(first);
      const shown = ids(first.json as Pet[]);
      for (const id of created.filter((id) => !shown.includes(id))) {
        const read = await api.client.get(`/pets/${id}`);
        await api.client.request(`/pets/${id}`, {
          method: 'DELETE',
          headers: { 'If-Match': read.headers.get('etag') ?? '' },
        });
      }

      const last = await api.client.get(next ?? '/pets?limit=2');

      expect(next).toBeDefined();
      expect(last.status).toBe(200);
      expect(last.json).toEqual([]);
      expect(last.headers.get('link')).toBeNull();
    } finally {
      await api.close();
    }
  });
});
