import assert from 'node:assert/strict';
import { createPet } from '#functions/create-pet';
import { listPets } from '#functions/list-pets';
import { BASE_PATH } from '#shared/http/paths';
import type { ObservedExchange } from './api-client';
import { assertAtLeast, assertContains, assertError, detailsOf } from './assertions';
import { type ContractArea, check, creating } from './check';
import { smokeName } from './target';

/** Following `Link: <…>; rel="next"` of listPets as a client does, over whatever the stage holds. */

const LIST = listPets.path;

export const nextPath = (response: ObservedExchange): string | undefined => {
  const link = response.headers.get('link');
  if (link === null) return undefined;
  const target = new RegExp(`^<${BASE_PATH}(${LIST}\\?[^>]+)>; rel="next"$`).exec(link)?.[1];
  if (!target) throw new Error(`Not a next link: ${link}`);
  return target;
};

export const PAGINATION_AREA: ContractArea = {
  area: 'pagination',
  checks: [
    creating(
      'walks a status by Link: full pages, no pet twice, each link keeping status and limit',
      async ({ api }) => {
        const pets = [1, 2, 3].map((index) => ({
          name: smokeName(`page${index}`),
          categoryId: 1,
          status: 'sold',
        }));
        const created = await Promise.all(pets.map((pet) => api.post(createPet.path, pet)));
        assert.deepEqual(
          created.map((response) => response.status),
          [201, 201, 201],
        );

        const pages: { id: number; status: string }[][] = [];
        let path: string | undefined = `${LIST}?status=sold&limit=2`;
        while (path && pages.length < 3) {
          const response = await api.get(path);
          pages.push(response.json as { id: number; status: string }[]);
          path = nextPath(response);
          const query = new URLSearchParams(path?.split('?')[1]);
          if (path) assert.deepEqual([query.get('status'), query.get('limit')], ['sold', '2']);
        }

        assertAtLeast(pages.length, 2);
        for (const page of pages.slice(0, -1)) assert.equal(page.length, 2);
        assert.deepEqual(new Set(pages.flat().map((pet) => pet.status)), new Set(['sold']));
        const ids = pages.flat().map((pet) => pet.id);
        assert.equal(new Set(ids).size, ids.length);
      },
    ),
    check('refuses on query.cursor a cursor it did not issue', async ({ api }) => {
      const cases = [
        ['garbage', 'is not a cursor this API issued'],
        ['A'.repeat(129), 'at most 128 characters'],
        ['a%2Bb%2Fc', 'base64url characters only'],
        ['', 'must not be empty'],
        [Buffer.from('{"id":{"N":"7"}}').toString('base64url'), 'is not a cursor this API issued'],
      ] as const;
      for (const [cursor, message] of cases) {
        const response = await api.get(`${LIST}?cursor=${cursor}`);

        assertError(response, 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          detailsOf(response).map(({ field }) => field),
          ['query.cursor'],
        );
        assertContains(detailsOf(response)[0]?.message, message);
      }
    }),
  ],
};
