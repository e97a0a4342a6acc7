import { petsTable } from '#shared/adapters/dynamodb/pets-table';
import { operationFunction } from '#shared/composition/function';
import { PetNotFoundError, PetVersionMismatchError } from '#shared/domain/errors';
import { Pet, PetPatch } from '#shared/domain/pet';
import { ETAG_HEADER, etagOf, IfMatch, IfNoneMatch, versionCondition } from '#shared/http/conditional';
import { MAX_BODY_BYTES } from '#shared/http/limits';
import { jsonEndpoint } from '#shared/http/middleware/json-body';
import { PetIdPath } from '#shared/http/pet-path';
import { ok } from '#shared/http/responses';
import { defineOperation } from '#shared/operations/operation';
import { object } from '#shared/schema/objects';

/** `PATCH /pets/{petId}`: a JSON merge patch of the animal's fields; 200 with the animal and its ETag. */
export const updatePet = defineOperation({
  operationId: 'updatePet',
  method: 'PATCH',
  path: '/pets/{petId}',
  summary: 'Change an animal',
  description: [
    'Changes the fields of the animal the body sets (a JSON merge patch, RFC 7396), in one write; the others keep their value. Any status may follow any other. A `GET` of the animal shows the change at once; a listing by status may show it a moment later (its index is updated after the write).',
    `The body is a JSON object of at most ${MAX_BODY_BYTES / 1024} KiB, sent as \`application/merge-patch+json\` or \`application/json\`. It must set at least one field; \`null\` (remove) is refused for every field, as are \`id\` and unknown fields.`,
    'With `If-Match`, the change applies only if the animal still has one of the ETags named, else 412 and nothing changes: of several clients changing it from the same ETag, one wins and the others get 412. With `If-None-Match`, only if it has none of them (`*`: never), else 412. A client that sent a conditional change and got no answer, then gets 412 on its retry, may have made the change itself: a `GET` (the animal and its `ETag`) shows whether it is there.',
  ].join('\n\n'),
  request: {
    path: PetIdPath,
    headers: object({ 'if-match': IfMatch, 'if-none-match': IfNoneMatch }),
    body: PetPatch,
  },
  bodyMediaTypes: ['application/merge-patch+json', 'application/json'],
  responses: {
    200: {
      description: 'The animal as changed, with its new ETag.',
      body: Pet,
      headers: ETAG_HEADER,
      example: { id: 1, name: 'Rex', categoryId: 3, status: 'sold' },
    },
  },
  errors: [
    { summary: 'No animal has this id', example: () => new PetNotFoundError(987654321) },
    {
      summary: 'The animal has changed since the ETag in If-Match, or is at one If-None-Match names',
      example: () => new PetVersionMismatchError(1),
    },
  ],
  examples: {
    requests: {
      sold: { summary: 'Mark it sold', value: { status: 'sold' } },
      rename: {
        summary: 'Rename it and move it to another category',
        value: { name: 'Rex II', categoryId: 4 },
      },
    },
    invalid: {
      summary: '`petId` is not a positive integer, a null name (a name cannot be removed) and `id`',
      path: { petId: 'abc' },
      body: { name: null, id: 2 },
    },
  },
});

/** updatePet's function: one conditional UpdateItem, a merge patch under its If-Match; the pet and its new ETag. */
export const updatePetFunction = operationFunction(updatePet, {
  uses: { pets: petsTable.allow('update') },
  handler: ({ pets, ...dependencies }) =>
    jsonEndpoint(updatePet, dependencies, async ({ path, headers, body }) => {
      const { pet, version } = await pets.update(path.petId, body, versionCondition(headers));
      return ok(pet, { ETag: etagOf(version) });
    }),
});
