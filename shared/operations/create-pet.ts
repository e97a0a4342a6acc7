import * as z from 'zod/mini';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { DEFAULT_PET_STATUS, describe, NewPet, Pet } from '#shared/domain/pet';
import { MAX_BODY_BYTES } from '#shared/http/limits';
import { petLocation } from '#shared/http/paths';
import { defineOperation } from '#shared/operations/operation';

/** `POST /pets`: adds a pet; 201 with the pet and its `Location`. */
export const createPet = defineOperation({
  operationId: 'createPet',
  method: 'POST',
  path: '/pets',
  summary: 'Add an animal',
  description: [
    `Adds an animal. The service assigns its \`id\`; \`status\` is \`${DEFAULT_PET_STATUS}\` when omitted.`,
    `The body must be a JSON object of at most ${MAX_BODY_BYTES / 1024} KiB, sent as \`application/json\`. Unknown fields (including \`id\`) are refused, so a misspelt field never silently creates an animal.`,
  ].join('\n\n'),
  request: { body: NewPet },
  responses: {
    201: {
      description: 'The animal was added; the body is the animal with its `id`.',
      body: Pet,
      headers: {
        Location: {
          description: 'Where the new animal can be read.',
          required: true,
          schema: describe(z.string(), { format: 'uri-reference' }),
          example: petLocation(1),
        },
      },
      example: { id: 1, name: 'Rex', categoryId: 3, status: DEFAULT_PET_STATUS },
    },
  },
  data: [...DATA_ACCESS.ids.next, ...DATA_ACCESS.pets.create],
  examples: {
    requests: {
      minimal: { summary: 'Name and category only', value: { name: 'Rex', categoryId: 3 } },
      withStatus: { summary: 'With a status', value: { name: 'Tom', categoryId: 7, status: 'pending' } },
    },
    invalid: {
      summary: 'An empty name, categoryId 0 and a misspelt field',
      body: { name: '', categoryId: 0, staus: 'sold' },
    },
  },
});
