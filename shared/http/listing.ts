import * as v from 'valibot';
import type { ListingFilter, PetListing } from '#shared/adapters/dynamodb/pet-listing';
import type { ListingPages } from '#shared/adapters/dynamodb/pets-table';
import { integer } from '#shared/domain/pet';
import { cursorContinues, encodeCursor, type ListCursor } from '#shared/http/cursor';
import { otherFilterProblem } from '#shared/http/cursor-problems';
import { validationFailed } from '#shared/http/middleware/validate-request';
import { integerParam } from '#shared/http/params';
import { BASE_PATH } from '#shared/http/paths';
import { ok } from '#shared/http/responses';
import type { HeaderDescriptor } from '#shared/operations/operation';
import { describe } from '#shared/schema/describe';

/** What an operation that lists pets answers with, from its listing's declaration (adapters/dynamodb/pet-listing.ts). */

/** The `limit` query parameter of a listing: its page rules, decoded from the text a query carries. */
/* @__NO_SIDE_EFFECTS__ */
export const limitParam = (listing: PetListing, description: string) =>
  // The default is the text a query would carry; it is decoded like any other.
  describe(v.optional(integerParam(integer(1, listing.limit.max)), String(listing.limit.default)), {
    description,
  });

/** `Link: <…>; rel="next"` (RFC 8288): the same request (path, then query in its order) with the cursor. */
export const nextPageLink = (
  path: string,
  query: Readonly<Record<string, string | number | undefined>>,
  cursor: ListCursor,
): string => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  params.set('cursor', encodeCursor(cursor));
  return `<${BASE_PATH}${path}?${params}>; rel="next"`;
};

/**
 * The `Link` header of a listing's answer: `description`, a pattern of the operation's path (a parameter
 * any one segment), and an example made when the document is (it signs a cursor), never at a cold start.
 */
export const nextLinkHeader = (
  path: string,
  description: string,
  example: () => string,
): HeaderDescriptor => ({
  description,
  required: false,
  schema: describe(
    v.pipe(
      v.string(),
      v.regex(new RegExp(`^<${BASE_PATH}${path.replace(/\{\w+\}/g, '[^/?<>]+')}\\?[^<>]+>; rel="next"$`)),
    ),
    { description: 'A URI reference relative to the host, then `rel="next"`.' },
  ),
  get example() {
    return example();
  },
});

/** A request for a page of a listing, as its handler has it. */
export interface ListingRequest<L extends PetListing> {
  /** The operation's path (`/categories/{categoryId}/pets`) and its parameters: where `Link` points. */
  readonly path: string;
  readonly params?: Readonly<Record<string, string | number>>;
  /** The query parameters as sent but the cursor, in the order `Link` repeats them. */
  readonly query: Readonly<Record<string, string | number | undefined>>;
  readonly limit: number;
  readonly cursor: ListCursor<L> | undefined;
  /** The value the listing is filtered by (its index's field), from the path or the query. */
  readonly filter: ListingFilter<L>;
}

/**
 * A listing operation's whole answer: a cursor of another listing or filter value is refused (400 on
 * `query.cursor`), then one page is read and answered, with `Link` while more follow.
 */
export const answerPage = async <L extends PetListing>(
  pages: ListingPages<L>,
  listing: L,
  { path, params = {}, query, limit, cursor, filter }: ListingRequest<L>,
) => {
  if (!cursorContinues(cursor, listing, filter)) {
    const field = listing.index?.field ?? cursor?.listing.index?.field ?? 'filter';
    throw validationFailed([{ field: 'query.cursor', message: otherFilterProblem(field) }]);
  }
  // A page query of this very listing: TypeScript cannot resolve its type for a listing not yet known.
  const page = await pages.page(listing, { limit, filter, after: cursor?.positions } as never);
  if (!page.next) return ok(page.pets);
  const at = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
  const next = { listing, ...(filter === undefined ? {} : { filter }), positions: page.next };
  return ok(page.pets, { Link: nextPageLink(at, query, next) });
};
