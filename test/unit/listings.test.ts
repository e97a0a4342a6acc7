import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '#functions/operations';
import { type PetListing, positionKindOf } from '#shared/adapters/dynamodb/pet-listing';

/**
 * Each listing's cursors are signed with its name (shared/http/cursor.ts): an operation's listings
 * carry its `operationId`, so no two operations can read each other's cursors, and within one
 * operation the listings are told apart by what they walk (the cursor's first byte).
 */

const listingsOf = (uses: Readonly<Record<string, unknown>>): readonly PetListing[] =>
  Object.values(uses).flatMap((use) =>
    typeof use === 'object' && use !== null && 'listings' in use
      ? (use.listings as readonly PetListing[])
      : [],
  );

const LISTING_OPERATIONS = OPERATIONS.map((fn) => ({
  operationId: fn.name,
  listings: listingsOf(fn.uses),
})).filter(({ listings }) => listings.length > 0);

describe("the operations' listings", () => {
  it('are found in the uses of the operations that list', () => {
    expect(LISTING_OPERATIONS.map(({ operationId }) => operationId)).toContain('listPets');
  });

  it.each(LISTING_OPERATIONS)(
    'of $operationId carry its name, so their cursors are its own',
    ({ operationId, listings }) => {
      expect(listings.map((listing) => listing.name)).toEqual(listings.map(() => operationId));
    },
  );

  it.each(LISTING_OPERATIONS)(
    'of $operationId walk different things: no two cursors look alike',
    ({ listings }) => {
      const kinds = listings.map(positionKindOf);

      expect(new Set(kinds).size).toBe(kinds.length);
    },
  );
});
