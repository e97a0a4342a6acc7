import { describe, expect, it } from 'vitest';
import { PETS_BY_STATUS } from '#functions/list-pets';
import { defineListing } from '#shared/adapters/dynamodb/pet-listing';
import type { ListingPages } from '#shared/adapters/dynamodb/pets-table';
import { STATUS_SHARD_INDEX } from '#shared/adapters/dynamodb/table-design';
import type { PetPage } from '#shared/domain/pet';
import { decodeCursor, encodeCursor } from '#shared/http/cursor';
import { answerPage } from '#shared/http/listing';

/**
 * A listing operation's answer (shared/http/listing.ts), for a listing whose filter comes from the
 * path, which no operation has yet: its cursor checked against the path, its `Link` at the path.
 */

/** A listing filtered by a path parameter, as `/owners/{status}/pets` would be. */
const BY_PATH = defineListing({ name: 'listOwnerPets', index: STATUS_SHARD_INDEX });

const pagesAnswering = (page: PetPage) => {
  const asked: unknown[] = [];
  const pages: ListingPages<typeof BY_PATH> = {
    page: async (listing, query) => {
      asked.push({ listing: listing.name, ...query });
      return page;
    },
  };
  return { pages, asked };
};

const PET = { id: 7, name: 'Rex', categoryId: 1, status: 'sold' } as const;

describe('a page of a listing filtered by its path', () => {
  it('links the next page at the path it was asked at, with its query and the cursor of its filter value', async () => {
    const { pages, asked } = pagesAnswering({ pets: [PET], next: [{ fromId: 23 }] });

    const answer = await answerPage(pages, BY_PATH, {
      path: '/owners/{status}/pets',
      params: { status: 'sold' },
      query: { limit: 1 },
      limit: 1,
      cursor: undefined,
      filter: 'sold',
    });

    expect(asked).toEqual([{ listing: 'listOwnerPets', limit: 1, filter: 'sold', after: undefined }]);
    expect(answer.body).toEqual([PET]);
    const link = (answer as { readonly headers?: { readonly Link?: string } }).headers?.Link ?? '';
    const [, path, cursor] =
      /^<\/v1(\/owners\/sold\/pets)\?limit=1&cursor=([\w-]+)>; rel="next"$/.exec(link) ?? [];
    expect(path).toBe('/owners/sold/pets');
    expect(decodeCursor([BY_PATH], cursor ?? '')).toEqual({
      ok: true,
      cursor: { listing: BY_PATH, filter: 'sold', positions: [{ fromId: 23 }] },
    });
  });

  it('refuses a cursor of another value of its filter, before any read, naming query.cursor', async () => {
    const { pages, asked } = pagesAnswering({ pets: [] });
    const cursor = { listing: BY_PATH, filter: 'pending', positions: [{ fromId: 3 }] };

    const refused = answerPage(pages, BY_PATH, {
      path: '/owners/{status}/pets',
      params: { status: 'sold' },
      query: { limit: 5 },
      limit: 5,
      cursor,
      filter: 'sold',
    });

    await expect(refused).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        {
          field: 'query.cursor',
          message: 'belongs to a listing with another status; a cursor keeps the status of the first page',
        },
      ],
    });
    expect(asked).toEqual([]);
  });

  it('never takes the cursor of another operation’s listing of the same index', () => {
    const theirs = encodeCursor({ listing: PETS_BY_STATUS, filter: 'sold', positions: [{ fromId: 3 }] });

    expect(decodeCursor([BY_PATH], theirs)).toMatchObject({ ok: false });
  });
});
