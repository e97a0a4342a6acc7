import { petsTable } from '#shared/adapters/dynamodb/pets-table';
import { operationFunction } from '#shared/composition/function';
import { PetNotFoundError, PetVersionMismatchError } from '#shared/domain/errors';
import { IfMatch, IfNoneMatch, versionCondition } from '#shared/http/conditional';
import { httpEndpoint } from '#shared/http/endpoint';
import { PetIdPath } from '#shared/http/pet-path';
import { noContent } from '#shared/http/responses';
import { defineOperation } from '#shared/operations/operation';
import { object } from '#shared/schema/objects';

/** `DELETE /pets/{petId}`: removes the animal; 204 with no body. */
export const deletePet = defineOperation({
  operationId: 'deletePet',
  method: 'DELETE',
  path: '/pets/{petId}',
  summary: 'Remove an animal',
  description: [
    'Removes the animal, in one write. Answers 204 with no body; 404 when no animal has this id, a second removal included. Its id is never given to another animal.',
    'With `If-Match`, only if the animal still has one of the ETags named; with `If-None-Match`, only if it has none of them (`*`: never). Else 412, and the animal stays.',
  ].join('\n\n'),
  request: {
    path: PetIdPath,
    headers: object({ 'if-match': IfMatch, 'if-none-match': IfNoneMatch }),
  },
  responses: { 204: { description: 'The animal was removed.' } },
  errors: [
    { summary: 'No animal has this id', example: () => new PetNotFoundError(987654321) },
    {
      summary: 'The animal has changed since the ETag in If-Match, or is at one If-None-Match names',
      example: () => new PetVersionMismatchError(1),
    },
  ],
  examples: { invalid: { summary: '`petId` is not a positive integer', path: { petId: 'abc' } } },
});

/** deletePet's function: one conditional DeleteItem, under its If-Match; 204, no body. */
export const deletePetFunction = operationFunction(deletePet, {
  uses: { pets: petsTable.allow('delete') },
  handler: ({ pets, ...dependencies }) =>
    httpEndpoint(deletePet, dependencies, async ({ path, headers }) => {
      await pets.delete(path.petId, versionCondition(headers));
      return noContent();
    }),
});
