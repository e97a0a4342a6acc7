import assert from 'node:assert/strict';
import type { ApiClient, ObservedExchange } from './api-client';
import { assertAtLeast, assertAtMost, assertContains, assertError, detailsOf } from './assertions';
import { type ContractArea, creating, eachCase } from './check';
import { smokeName } from './target';

/** Following `Link: <…>; rel="next"` as a client does, over whatever the stage holds. */

type Pet = { id: number; status: string };

/** The path a next link points to, below the base URL (`…/v1`); undefined on the last page. */
export const nextPath = (response: ObservedExchange): string | undefined => {
  const link = response.headers.get('link');
  if (link === null) return undefined;
  const target = /^<\/v1(\/pets\?[^>]+)>; rel="next"$/.exec(link)?.[1];
  if (!target) throw new Error(`Not a next link: ${link}`);
  return target;
};

const queryOf = (path: string) => new URLSearchParams(path.split('?')[1]);

/** Up to `pages` pages from `first`, and the links followed. */
const walk = async (api: ApiClient, first: string, pages: number) => {
  const seen: Pet[][] = [];
  const links: string[] = [];
  let path: string | undefined = first;
  while (path && seen.length < pages) {
    const response = await api.get(path);
    assert.equal(response.status, 200);
    seen.push(response.json as Pet[]);
    path = nextPath(response);
    if (path) links.push(path);
  }
  return { pages: seen, links };
};

/** Three pets of `status`, so that a walk with limit 2 has a next page. */
const ensureThree = (api: ApiClient, status: string) =>
  Promise.all(
    [1, 2, 3].map((index) => api.post('/pets', { name: smokeName(`page${index}`), categoryId: 1, status })),
  );

/** A real cursor of a listing, from the link of its first page. */
const cursorOf = async (api: ApiClient, query: string) => {
  const path = nextPath(await api.get(`/pets?${query}`));
  const cursor = path ? queryOf(path).get('cursor') : null;
  if (!cursor) throw new Error(`/pets?${query} has no next page`);
  return cursor;
};

export const PAGINATION_AREA: ContractArea = {
  area: 'pagination',
  checks: [
    creating(
      'walks the unfiltered listing by Link: full pages, never an empty one, no pet twice',
      async ({ api }) => {
        await ensureThree(api, 'available');

        const { pages } = await walk(api, '/pets?limit=2', 3);

        assertAtLeast(pages.length, 2);
        for (const page of pages) assertAtLeast(page.length, 1);
        for (const page of pages.slice(0, -1)) assert.equal(page.length, 2);
        const ids = pages.flat().map((pet) => pet.id);
        assert.equal(new Set(ids).size, ids.length);
      },
    ),

    creating(
      'walks a status across pages, no pet twice, every link keeping status and limit',
      async ({ api }) => {
        await ensureThree(api, 'sold');

        const { pages, links } = await walk(api, '/pets?status=sold&limit=2', 3);

        const pets = pages.flat();
        assert.deepEqual(
          pets.filter((pet) => pet.status !== 'sold'),
          [],
        );
        for (const page of pages.slice(0, -1)) assert.equal(page.length, 2);
        const ids = pets.map((pet) => pet.id);
        assert.equal(new Set(ids).size, ids.length);
        assertAtLeast(links.length, 1);
        for (const link of links) {
          const query = queryOf(link);
          assert.deepEqual([query.get('status'), query.get('limit')], ['sold', '2']);
          assert.match(query.get('cursor') ?? '', /^[A-Za-z0-9_-]+$/);
        }
      },
    ),

    creating('lets a client change limit between pages, carrying on where it was', async ({ api }) => {
      await ensureThree(api, 'pending');
      const first = await api.get('/pets?status=pending&limit=1');
      const next = nextPath(first);
      assert.notEqual(next, undefined, 'The first page of three pending pets, one a page, has no next link');

      const second = await api.get(
        `/pets?status=pending&limit=2&cursor=${queryOf(next ?? '').get('cursor')}`,
      );

      assert.equal(second.status, 200);
      const [firstPet] = first.json as Pet[];
      const page = second.json as Pet[];
      assertAtLeast(page.length, 1);
      assertAtMost(page.length, 2);
      for (const pet of page) assert.deepEqual([pet.status, pet.id === firstPet?.id], ['pending', false]);
    }),

    ...eachCase(
      [
        ['garbage', 'cursor=garbage', 'is not a cursor this API issued'],
        ['oversized', `cursor=${'A'.repeat(129)}`, 'at most 128 characters'],
        ['not base64url', 'cursor=a%2Bb%2Fc', 'base64url characters only'],
        ['empty', 'cursor=', 'must not be empty'],
        [
          'foreign (a raw DynamoDB key)',
          `cursor=${Buffer.from('{"id":{"N":"7"}}').toString('base64url')}`,
          'is not a cursor this API issued',
        ],
      ],
      ([what]) => `answers 400 VALIDATION_FAILED on query.cursor for a ${what} cursor`,
      async ({ api }, [_what, query, message]) => {
        const response = await api.get(`/pets?${query}`);

        assertError(response, 400, 'VALIDATION_FAILED');
        const details = detailsOf(response);
        assert.deepEqual(
          details.map((detail) => detail.field),
          ['query.cursor'],
        );
        assertContains(details[0]?.message, message);
      },
    ),

    creating('answers 400 on query.cursor for a cursor altered in one character', async ({ api }) => {
      await ensureThree(api, 'sold');
      const cursor = await cursorOf(api, 'status=sold&limit=1');
      const altered = `${cursor.slice(0, 12)}${cursor[12] === 'A' ? 'B' : 'A'}${cursor.slice(13)}`;

      const response = await api.get(`/pets?status=sold&cursor=${altered}`);

      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        detailsOf(response).map((detail) => detail.field),
        ['query.cursor'],
      );
    }),

    creating(
      'answers 400 on query.cursor for a cursor replayed with another status, or without one',
      async ({ api }) => {
        await ensureThree(api, 'sold');
        const cursor = await cursorOf(api, 'status=sold&limit=1');

        const otherStatus = await api.get(`/pets?status=pending&cursor=${cursor}`);
        const noStatus = await api.get(`/pets?cursor=${cursor}`);

        for (const response of [otherStatus, noStatus]) {
          assertError(response, 400, 'VALIDATION_FAILED');
          const details = detailsOf(response);
          assert.deepEqual(
            details.map((detail) => detail.field),
            ['query.cursor'],
          );
          assertContains(details[0]?.message, 'another status');
        }
      },
    ),
  ],
};
