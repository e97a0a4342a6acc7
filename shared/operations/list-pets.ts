import * as z from 'zod/mini';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import {
  describe,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  ListPetsOptions,
  PetStatus,
  Pets,
} from '#shared/domain/pet';
import { integerParam } from '#shared/http/params';
import { defineOperation } from '#shared/operations/operation';

export const ListPetsQuery = z.strictObject(
  {
    limit: describe(z._default(integerParam(ListPetsOptions.shape.limit), LIST_LIMIT_DEFAULT), {
      description: 'Maximum number of animals returned.',
    }),
    status: describe(z.optional(PetStatus), { description: 'Only animals with this availability.' }),
  },
  { error: 'is not a known query parameter' },
);

/** `GET /pets`: one page of pets, optionally only those with a given status. */
export const listPets = defineOperation({
  operationId: 'listPets',
  method: 'GET',
  path: '/pets',
  summary: 'List animals',
  description: [
    'One page of animals: at most `limit` of them. With `status`, only the animals of that availability, oldest (lowest id) first; without it, in no particular order.',
    'There is no cursor: the page is the first `limit` animals.',
    'Unknown, repeated or out-of-range query parameters are refused with 400, never ignored or clamped.',
  ].join('\n\n'),
  request: { query: ListPetsQuery },
  responses: {
    200: {
      description: 'One page of animals (possibly empty).',
      body: Pets,
      example: [
        { id: 1, name: 'Rex', categoryId: 3, status: 'available' },
        { id: 2, name: 'Tom', categoryId: 7, status: 'pending' },
        { id: 5, name: 'Kitty', categoryId: 7, status: 'sold' },
      ],
    },
  },
  data: DATA_ACCESS.pets.list,
  examples: { invalid: { summary: `\`limit\` above ${LIST_LIMIT_MAX}`, query: { limit: '500' } } },
});
