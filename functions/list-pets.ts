import * as v from 'valibot';
import { petsTable } from '#shared/adapters/dynamodb/pets-table';
import { operationFunction } from '#shared/composition/function';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, ListPetsOptions, PetStatus, Pets } from '#shared/domain/pet';
import { cursorMatchesStatus, cursorParam } from '#shared/http/cursor';
import { CURSOR_PROBLEM, MAX_CURSOR_LENGTH } from '#shared/http/cursor-problems';
import { httpEndpoint } from '#shared/http/endpoint';
import { nextPageLink } from '#shared/http/pagination';
import { integerParam, QUERY_PARAMETERS } from '#shared/http/params';
import { BASE_PATH, PETS_PATH } from '#shared/http/paths';
import { ok } from '#shared/http/responses';
import { defineOperation } from '#shared/operations/operation';
import { describe } from '#shared/schema/describe';
import { strictObject } from '#shared/schema/objects';

const PATH = PETS_PATH;

export const ListPetsQuery = v.pipe(
  strictObject(
    {
      // The default is the text a query would carry; it is decoded like any other (to 20).
      limit: describe(v.optional(integerParam(ListPetsOptions.entries.limit), String(LIST_LIMIT_DEFAULT)), {
        description: 'Maximum number of animals returned.',
      }),
      status: describe(v.optional(PetStatus), { description: 'Only animals with this availability.' }),
      cursor: describe(v.optional(cursorParam), {
        description: `Where the page starts: copied unchanged from the \`Link\` header of the previous page, never built by hand. Good only with the \`status\` of the page it came from (\`limit\` may change). At most ${MAX_CURSOR_LENGTH} characters.`,
      }),
    },
    QUERY_PARAMETERS,
  ),
  // A cursor continues one listing: the one with the status it was issued for.
  v.forward(v.partialCheck([['cursor'], ['status']], cursorMatchesStatus, CURSOR_PROBLEM.otherStatus), [
    'cursor',
  ]),
);

/** `GET /pets`: one page of pets, optionally only those with a given status; `Link` to the next. */
export const listPets = defineOperation({
  operationId: 'listPets',
  method: 'GET',
  path: PATH,
  summary: 'List animals',
  description: [
    'One page of animals: at most `limit` of them. With `status`, only the animals of that availability, in a stable order that is not by id (the status index is split into 16 shards by id; a walk reads them one after the other, ascending id within each); without it, in storage order (stable, but not by id either).',
    'While more animals follow, the answer carries `Link: <…>; rel="next"`: the same listing (same `status` and `limit`) with a `cursor`. Follow it until an answer has no `Link`; the last page never links to an empty one. Walking the pages visits every animal that exists throughout the walk exactly once. `limit` may change from page to page, `status` may not.',
    'Unknown, repeated or out-of-range query parameters, and a cursor that is malformed, altered, too long or from a listing with another `status`, are refused with 400 (`details` names `query.cursor`), never ignored or clamped.',
  ].join('\n\n'),
  request: { query: ListPetsQuery },
  responses: {
    200: {
      description: 'One page of animals (possibly empty).',
      body: Pets,
      headers: {
        Link: {
          description:
            'The next page (RFC 8288), present while more animals follow: this listing (same `status` and `limit`) with the `cursor` where it continues.',
          required: false,
          schema: describe(
            v.pipe(v.string(), v.regex(new RegExp(`^<${BASE_PATH}${PATH}\\?[^<>]+>; rel="next"$`))),
            {
              description: 'A URI reference relative to the host, then `rel="next"`.',
            },
          ),
          // Made when the document is, not at every cold start of the function: it signs a cursor.
          get example() {
            return nextPageLink(PATH, { status: 'pending', limit: 2 }, [{ fromId: 2 }]);
          },
        },
      },
      example: [
        { id: 1, name: 'Rex', categoryId: 3, status: 'available' },
        { id: 2, name: 'Tom', categoryId: 7, status: 'pending' },
        { id: 5, name: 'Kitty', categoryId: 7, status: 'sold' },
      ],
    },
  },
  examples: { invalid: { summary: `\`limit\` above ${LIST_LIMIT_MAX}`, query: { limit: '500' } } },
});

/** listPets' function: one page of pets, optionally of one status, and a `Link` to the next. */
export const listPetsFunction = operationFunction(listPets, {
  uses: { pets: petsTable.allow('list') },
  handler: ({ pets, ...dependencies }) =>
    httpEndpoint(listPets, dependencies, async ({ query }) => {
      const { limit, status, cursor } = query;
      const page = await pets.list({ limit, status, ...(cursor ? { after: cursor.positions } : {}) });
      return page.next
        ? ok(page.pets, { Link: nextPageLink(listPets.path, { limit, status }, page.next) })
        : ok(page.pets);
    }),
});
