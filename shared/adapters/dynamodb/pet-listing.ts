import type { PetIndexDesign } from '#shared/adapters/dynamodb/table-design';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, type Pet } from '#shared/domain/pet';

/**
 * A listing of pets, declared once: what it walks and its page rules. Its pages, their ending and the
 * next position are the table adapter's (PetsTable.page); its cursor, query and `Link`, http/listing.ts.
 *
 * - `index`: one of the table's indexes (table-design.ts), filtered by the value of its field: its
 *   partitions one after the other (the shards of a sharded one), ascending id in each; a page starts
 *   at a pet (`fromId`). Without one, a Scan of the whole table, in storage order; a page continues
 *   after a pet (`afterId`).
 * - `name`: signs its cursors (their integrity key), so a cursor of another name is refused (400). The
 *   listings of one operation share its name (its `operationId`) and tell their cursors apart by what
 *   they walk; `test/unit/listings.test.ts` holds every operation to that.
 */
export interface PetListing {
  readonly name: string;
  readonly index?: PetIndexDesign;
  /** How many pets a page holds when the client does not say, and at most. */
  readonly limit: { readonly default: number; readonly max: number };
}

/** The value a listing is filtered by: its index's field, or none for the whole table. */
export type ListingFilter<L extends PetListing> = L extends { readonly index: infer I extends PetIndexDesign }
  ? Pet[I['field']]
  : undefined;

/** A listing, its page rules the API's usual ones (20 a page, 100 at most) unless it says otherwise. */
export const defineListing = <const L extends Omit<PetListing, 'limit'> & Partial<Pick<PetListing, 'limit'>>>(
  listing: L,
): Omit<L, 'index'> & {
  // Stated even when absent, so that a listing of the table is never taken for one of an index.
  readonly index: L extends { readonly index: infer I extends PetIndexDesign } ? I : undefined;
  readonly limit: PetListing['limit'];
} => ({ limit: { default: LIST_LIMIT_DEFAULT, max: LIST_LIMIT_MAX }, index: undefined, ...listing }) as never;

/** How a listing's pages continue: after a pet (a Scan of the table), or at one (an index, by id). */
export type PositionKind = 'afterId' | 'fromId';

export const positionKindOf = (listing: PetListing): PositionKind => (listing.index ? 'fromId' : 'afterId');
