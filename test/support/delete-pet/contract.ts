import { PetNotFoundError } from '#shared/domain/errors';
import { PetId } from '#shared/domain/pet';
import { integerParam, PATH_PARAMETERS } from '#shared/http/params';
import { defineOperation } from '#shared/operations/operation';
import { describe } from '#shared/schema/describe';
import { strictObject } from '#shared/schema/objects';

/**
 * A fifth operation that exists only in the tests: `DELETE /pets/{petId}`, answering 204 with no
 * body. It is written exactly as the README's recipe says a new operation is, in a folder of its
 * own, and test/integration/new-operation.test.ts builds the routes, the stack and the document
 * from `[...OPERATIONS, deletePetRoot]`, so the recipe is proved to be the whole of the work.
 */
export const deletePet = defineOperation({
  operationId: 'deletePet',
  method: 'DELETE',
  path: '/pets/{petId}',
  summary: 'Remove an animal (test-only)',
  description: 'Removes the animal. Answers 204 with no body; 404 when no animal has this id.',
  request: {
    path: strictObject(
      { petId: describe(integerParam(PetId), { description: 'Identifier of the animal.' }) },
      PATH_PARAMETERS,
    ),
  },
  responses: { 204: { description: 'The animal was removed.' } },
  errors: [{ summary: 'No animal has this id', example: () => new PetNotFoundError(987654321) }],
  examples: { invalid: { summary: '`petId` is not a positive integer', path: { petId: 'abc' } } },
});
