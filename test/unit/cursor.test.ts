import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ALL_PETS, ListPetsQuery, PETS_BY_STATUS } from '#functions/list-pets';
import { defineListing } from '#shared/adapters/dynamodb/pet-listing';
import { STATUS_SHARD_INDEX } from '#shared/adapters/dynamodb/table-design';
import { MAX_ID, PET_STATUSES } from '#shared/domain/pet';
import {
  cursorParam,
  decodeCursor as decodeAnyCursor,
  encodeCursor,
  type ListCursor,
} from '#shared/http/cursor';
import { nextPageLink } from '#shared/http/listing';
import { openApiMetadataOf } from '#shared/schema/describe';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** listPets' listings: every pet (a Scan), and by status (the sharded index). */
const LISTINGS = [ALL_PETS, PETS_BY_STATUS];
const decodeCursor = (text: string) => decodeAnyCursor(LISTINGS, text);

/**
 * Cursors of both kinds: `afterId` positions (kind 1: a Scan of the table) and `fromId`
 * positions (kind 2: the sharded walk of a status).
 */
const cursorArbitrary: fc.Arbitrary<ListCursor> = fc.oneof(
  fc.integer({ min: 1, max: MAX_ID }).map((afterId) => ({ listing: ALL_PETS, positions: [{ afterId }] })),
  fc
    .record({ status: fc.constantFrom(...PET_STATUSES), fromId: fc.integer({ min: 1, max: MAX_ID }) })
    .map(({ status, fromId }) => ({ listing: PETS_BY_STATUS, filter: status, positions: [{ fromId }] })),
);

/** Another operation's listing of the same index: its cursors are signed with its own name. */
const OTHER_LISTING = defineListing({ name: 'listOtherPets', index: STATUS_SHARD_INDEX });

/** The bytes of a cursor, rebuilt with the layout the codec documents (version · tag · JSON). */
const forge = (payload: string, options: { version?: number; key?: string } = {}): string => {
  const version = options.version ?? 1;
  const body = Buffer.from(payload, 'utf8');
  const tag = createHmac('sha256', options.key ?? 'pet-store listPets cursor, version 1')
    .update(Buffer.from([version]))
    .update(body)
    .digest()
    .subarray(0, 8);
  return Buffer.concat([Buffer.from([version]), tag, body]).toString('base64url');
};

const problemOf = (text: string): string => {
  const decoded = decodeCursor(text);
  if (decoded.ok) throw new Error(`Expected ${text} to be refused`);
  return decoded.problem;
};

describe('the listing cursor', () => {
  it('reads back every cursor it writes, status and position included', () => {
    fc.assert(
      fc.property(cursorArbitrary, (cursor) => {
        expect(decodeCursor(encodeCursor(cursor))).toEqual({ ok: true, cursor });
      }),
      { numRuns: 500 },
    );
  });

  it('is short, opaque base64url: no padding, no raw key, within the size limit', () => {
    fc.assert(
      fc.property(cursorArbitrary, (cursor) => {
        const text = encodeCursor(cursor);
        expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(text.length).toBeLessThanOrEqual(67);
        expect(text).not.toContain('ExclusiveStartKey');
      }),
    );
  });

  it('refuses any cursor with one character changed', () => {
    fc.assert(
      fc.property(cursorArbitrary, fc.nat(), fc.constantFrom(...BASE64URL), (cursor, where, replacement) => {
        const text = encodeCursor(cursor);
        const index = where % text.length;
        fc.pre(text[index] !== replacement);
        const tampered = `${text.slice(0, index)}${replacement}${text.slice(index + 1)}`;

        expect(decodeCursor(tampered).ok).toBe(false);
      }),
      { numRuns: 1_000 },
    );
  });

  it('refuses a cursor cut short or extended', () => {
    fc.assert(
      fc.property(
        cursorArbitrary,
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom('A', 'w', '_'),
        (cursor, cut, extra) => {
          const text = encodeCursor(cursor);

          expect(decodeCursor(text.slice(0, Math.max(0, text.length - cut))).ok).toBe(false);
          expect(decodeCursor(`${text}${extra}`).ok).toBe(false);
        },
      ),
    );
  });

  it.each([
    ['an empty text', '', 'must not be empty'],
    ['a text over 128 characters', 'A'.repeat(129), 'must be at most 128 characters'],
    [
      'padding',
      `${encodeCursor({ listing: ALL_PETS, positions: [{ afterId: 1 }] })}=`,
      'base64url characters only',
    ],
    ['standard base64 characters', 'AZlm+P0rV/jVvN', 'base64url characters only'],
    ['garbage', 'garbage', 'is not a cursor this API issued'],
    [
      'a raw ExclusiveStartKey',
      Buffer.from('{"id":{"N":"7"}}').toString('base64url'),
      'is not a cursor this API issued',
    ],
    [
      'a payload signed with another key',
      forge('{"p":[7]}', { key: 'guess' }),
      'is not a cursor this API issued',
    ],
    ['a cursor of another version', forge('{"p":[7]}', { version: 3 }), 'another version of the API'],
    ['a version and a tag with no payload', forge('', { version: 2 }), 'is not a cursor this API issued'],
    [
      'a version 2 cursor without a status: only a walk by status starts at a pet',
      forge('{"p":[7]}', { version: 2 }),
      'is not a cursor this API issued',
    ],
    [
      'a version 1 cursor with a status: only an unfiltered listing continues after a pet',
      forge('{"s":"sold","p":[7]}'),
      'is not a cursor this API issued',
    ],
    ['an unknown field', forge('{"p":[7],"x":1}'), 'is not a cursor this API issued'],
    ['two positions', forge('{"p":[7,8]}'), 'is not a cursor this API issued'],
    ['no position', forge('{"p":[]}'), 'is not a cursor this API issued'],
    ['an id of 0', forge('{"p":[0]}'), 'is not a cursor this API issued'],
    ['an id beyond 2^53−1', forge('{"p":[9007199254740992]}'), 'is not a cursor this API issued'],
    ['an unknown status', forge('{"s":"lost","p":[7]}'), 'is not a cursor this API issued'],
    ['a payload that is not JSON', forge('{"p":[7'), 'is not a cursor this API issued'],
  ])('refuses %s, saying why', (_case, text, problem) => {
    expect(problemOf(text)).toContain(problem);
  });

  it('is refused as a query parameter with the reason as its message, never read as no cursor', () => {
    const refused = v.safeParse(cursorParam(LISTINGS), forge('{"p":[7]}', { key: 'guess' }));

    expect(refused.success).toBe(false);
    expect(refused.issues?.map(({ message }) => message)).toEqual([
      'is not a cursor this API issued, or it was altered; copy it unchanged from a Link header',
    ]);
  });

  it('accepts a cursor built with the documented layout and key: integrity, not secrecy', () => {
    expect(decodeCursor(forge('{"s":"sold","p":[42]}', { version: 2 }))).toEqual({
      ok: true,
      cursor: { listing: PETS_BY_STATUS, filter: 'sold', positions: [{ fromId: 42 }] },
    });
  });

  it("is documented by an example the service reads as it says: an unfiltered listing's page after pet 20", () => {
    const { cursor } = ListPetsQuery.pipe[0].entries;
    const example = openApiMetadataOf(cursor)?.meta.example;

    expect(decodeCursor(String(example))).toEqual({
      ok: true,
      cursor: { listing: ALL_PETS, positions: [{ afterId: 20 }] },
    });
  });

  it('reads a kind 1 cursor as a position after a pet, of the listing of every pet', () => {
    expect(decodeCursor(forge('{"p":[42]}'))).toEqual({
      ok: true,
      cursor: { listing: ALL_PETS, positions: [{ afterId: 42 }] },
    });
  });

  it('writes kind 2 for the sharded walk of a status, kind 1 for a Scan of the table: by what they walk', () => {
    const kindOf = (text: string) => Buffer.from(text, 'base64url')[0];

    expect(
      kindOf(encodeCursor({ listing: PETS_BY_STATUS, filter: 'sold', positions: [{ fromId: 42 }] })),
    ).toBe(2);
    expect(kindOf(encodeCursor({ listing: ALL_PETS, positions: [{ afterId: 42 }] }))).toBe(1);
    expect(
      kindOf(encodeCursor({ listing: OTHER_LISTING, filter: 'sold', positions: [{ fromId: 42 }] })),
    ).toBe(2);
    expect(() =>
      encodeCursor({ listing: PETS_BY_STATUS, filter: 'sold', positions: [{ afterId: 42 }] }),
    ).toThrow('A cursor of listPets holds fromId positions');
    expect(() => encodeCursor({ listing: ALL_PETS, positions: [{ fromId: 42 }] })).toThrow(
      'A cursor of listPets holds afterId positions',
    );
    expect(() => encodeCursor({ listing: PETS_BY_STATUS, positions: [{ fromId: 42 }] })).toThrow(
      'An index is walked for one value of its field, and only an index',
    );
  });

  it('refuses the cursor of another listing, by construction: its integrity key is the listing’s name', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PET_STATUSES), fc.integer({ min: 1, max: MAX_ID }), (status, fromId) => {
        const theirs = encodeCursor({ listing: OTHER_LISTING, filter: status, positions: [{ fromId }] });
        const ours = encodeCursor({ listing: PETS_BY_STATUS, filter: status, positions: [{ fromId }] });

        expect(problemOf(theirs)).toContain('is not a cursor this API issued');
        expect(decodeAnyCursor([OTHER_LISTING], ours)).toEqual({
          ok: false,
          problem: expect.stringContaining('is not a cursor this API issued'),
        });
        expect(decodeAnyCursor([OTHER_LISTING], theirs)).toEqual({
          ok: true,
          cursor: { listing: OTHER_LISTING, filter: status, positions: [{ fromId }] },
        });
      }),
    );
  });

  it.each([
    [
      'a page of every pet',
      'AewQvdaBkR0NeyJwIjpbNDJdfQ',
      { listing: ALL_PETS, positions: [{ afterId: 42 }] },
    ],
    [
      'a page of one status',
      'Au_cupAHkXggeyJzIjoic29sZCIsInAiOls5MDA3MTk5MjU0NzQwOTkxXX0',
      { listing: PETS_BY_STATUS, filter: 'sold', positions: [{ fromId: MAX_ID }] },
    ],
    [
      'the document’s example',
      'AkX8praXBaMReyJzIjoicGVuZGluZyIsInAiOlsyXX0',
      { listing: PETS_BY_STATUS, filter: 'pending', positions: [{ fromId: 2 }] },
    ],
  ])(
    'reads a cursor issued before listings were declared (%s) as it was, and writes it alike',
    (_case, text, cursor) => {
      expect(decodeCursor(text)).toEqual({ ok: true, cursor });
      expect(encodeCursor(cursor as ListCursor)).toBe(text);
    },
  );
});

describe('the next-page link', () => {
  it('keeps status and limit and adds the cursor of where the listing continues', () => {
    const link = nextPageLink(
      '/pets',
      { status: 'pending', limit: 7 },
      { listing: PETS_BY_STATUS, filter: 'pending', positions: [{ fromId: 22 }] },
    );

    const target = /^<(.+)>; rel="next"$/.exec(link)?.[1] ?? '';
    const url = new URL(target, 'https://api.example.com');
    expect(url.pathname).toBe('/v1/pets');
    expect([...url.searchParams.keys()]).toEqual(['status', 'limit', 'cursor']);
    expect(url.searchParams.get('status')).toBe('pending');
    expect(url.searchParams.get('limit')).toBe('7');
    expect(decodeCursor(url.searchParams.get('cursor') ?? '')).toEqual({
      ok: true,
      cursor: { listing: PETS_BY_STATUS, filter: 'pending', positions: [{ fromId: 22 }] },
    });
  });

  it('has no status for an unfiltered listing', () => {
    const link = nextPageLink(
      '/pets',
      { status: undefined, limit: 20 },
      { listing: ALL_PETS, positions: [{ afterId: 3 }] },
    );

    expect(link).toMatch(/^<\/v1\/pets\?limit=20&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
  });
});
