import * as v from 'valibot';
import { defineListing } from '#shared/adapters/dynamodb/pet-listing';
import { listingsOf } from '#shared/adapters/dynamodb/pets-table';
import { STATUS_SHARD_INDEX } from '#shared/adapters/dynamodb/table-design';
import { operationFunction } from '#shared/composition/function';
import { PetStatus, Pets } from '#shared/domain/pet';
import { cursorContinues, cursorParam } from '#shared/http/cursor';
import { MAX_CURSOR_LENGTH, otherFilterProblem } from '#shared/http/cursor-problems';
import { httpEndpoint } from '#shared/http/endpoint';
import { answerPage, limitParam, nextLinkHeader, nextPageLink } from '#shared/http/listing';
import { QUERY_PARAMETERS } from '#shared/http/params';
import { PETS_PATH } from '#shared/http/paths';
import { defineOperation } from '#shared/operations/operation';
import { describe } from '#shared/schema/describe';
import { strictObject } from '#shared/schema/objects';

const PATH = PETS_PATH;

/** Every pet, in storage order: a Scan of the table, continued after the last pet of a page. */
export const ALL_PETS = defineListing({ name: 'listPets' });

/** The pets of one status: the shards of the status index one after the other, ascending id in each. */
export const PETS_BY_STATUS = defineListing({ name: 'listPets', index: STATUS_SHARD_INDEX });

/** The listing a query asks for: of one status when it names one, else of every pet. */
export const listingOf = (status: PetStatus | undefined) => (status ? PETS_BY_STATUS : ALL_PETS);

export const ListPetsQuery = v.pipe(
  strictObject(
    {
      limit: limitParam(ALL_PETS, 'Maximum number of animals returned.'),
      status: describe(v.optional(PetStatus), { description: 'Only animals with this availability.' }),
      cursor: describe(v.optional(cursorParam([ALL_PETS, PETS_BY_STATUS])), {
        description: `Where the page starts: copied unchanged from the \`Link\` header of the previous page, never built by hand. Good only with the \`status\` of the page it came from (\`limit\` may change). At most ${MAX_CURSOR_LENGTH} characters.`,
        // The page of an unfiltered listing after the pet with id 20 (test/unit/cursor.test.ts reads it).
        example: 'Afzl4d6NqI_eeyJwIjpbMjBdfQ',
      }),
    },
    QUERY_PARAMETERS,
  ),
  // A cursor continues one listing: the one with the status it was issued for.
  v.forward(
    v.partialCheck(
      [['cursor'], ['status']],
      ({ cursor, status }) => cursorContinues(cursor, listingOf(status), status),
      otherFilterProblem('status'),
    ),
    ['cursor'],
  ),
);

/** `GET /pets`: one page of pets, optionally only those with a given status; `Link` to the next. */
export const listPets = defineOperation({
  operationId: 'listPets',
  method: 'GET',
  path: PATH,
  summary: 'List animals',
  description: [
    `One page of animals: at most \`limit\` of them. With \`status\`, only the animals of that availability, in a stable order that is not by id (the status index is split into ${STATUS_SHARD_INDEX.shards} shards by id; a walk reads them one after the other, ascending id within each); without it, in storage order (stable, but not by id either).`,
    'While more animals follow, the answer carries `Link: <…>; rel="next"`: the same listing (same `status` and `limit`) with a `cursor`. Follow it until an answer has no `Link`; the last page never links to an empty one. Walking the pages visits every animal that exists throughout the walk exactly once. `limit` may change from page to page, `status` may not.',
    'Unknown, repeated or out-of-range query parameters, and a cursor that is malformed, altered, too long or from a listing with another `status`, are refused with 400 (`details` names `query.cursor`), never ignored or clamped.',
  ].join('\n\n'),
  request: { query: ListPetsQuery },
  responses: {
    200: {
      description: 'One page of animals (possibly empty).',
      body: Pets,
      headers: {
        // Made when the document is, not at every cold start of the function: it signs a cursor.
        Link: nextLinkHeader(
          PATH,
          'The next page (RFC 8288), present while more animals follow: this listing (same `status` and `limit`) with the `cursor` where it continues.',
          () =>
            nextPageLink(
              PATH,
              { status: 'pending', limit: 2 },
              { listing: PETS_BY_STATUS, filter: 'pending', positions: [{ fromId: 2 }] },
            ),
        ),
      },
      example: [
        { id: 1, name: 'Rex', categoryId: 3, status: 'available' },
        { id: 2, name: 'Tom', categoryId: 7, status: 'pending' },
        { id: 5, name: 'Kitty', categoryId: 7, status: 'sold' },
      ],
    },
  },
  examples: { invalid: { summary: `\`limit\` above ${ALL_PETS.limit.max}`, query: { limit: '500' } } },
});

/** listPets' function: one page of pets, optionally of one status, and a `Link` to the next. */
export const listPetsFunction = operationFunction(listPets, {
  uses: { pets: listingsOf(ALL_PETS, PETS_BY_STATUS) },
  handler: ({ pets, ...dependencies }) =>
    httpEndpoint(listPets, dependencies, ({ query: { limit, status, cursor } }) =>
      answerPage(pets, listingOf(status), {
        path: PATH,
        query: { status, limit },
        limit,
        cursor,
        filter: status,
      }),
    ),
});
