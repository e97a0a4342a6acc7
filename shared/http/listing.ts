import * as v from 'valibot';
import type { ListingFilter, PetListing } from '#shared/adapters/dynamodb/pet-listing';
import { integer, type PetPage } from '#shared/domain/pet';
import { encodeCursor, type ListCursor } from '#shared/http/cursor';
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

/** The request a page answers: its path and query as sent (but the cursor), and its listing's filter value. */
export interface PageRequest<L extends PetListing> {
  readonly path: string;
  readonly query: Readonly<Record<string, string | number | undefined>>;
  readonly filter: ListingFilter<L>;
}

/** A page's answer: its pets, and while more follow, `Link` to the rest of its listing. */
export const pageAnswer = <L extends PetListing>(listing: L, request: PageRequest<L>, page: PetPage) =>
  page.next
    ? ok(page.pets, {
        Link: nextPageLink(request.path, request.query, {
          listing,
          ...(request.filter === undefined ? {} : { filter: request.filter }),
          positions: page.next,
        }),
      })
    : ok(page.pets);
