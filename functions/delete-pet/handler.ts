import { deletePet } from '#functions/delete-pet/contract';
import type { PetService } from '#shared/domain/pet-service';
import { expectedVersions } from '#shared/http/conditional';
import { type FunctionDependencies, httpEndpoint } from '#shared/http/endpoint';
import { noContent } from '#shared/http/responses';

export interface DeletePetDependencies extends FunctionDependencies {
  readonly pets: PetService;
}

/** The deletePet function: removes one pet, under its If-Match; 204, no body. */
export const deletePetHandler = ({ pets, ...dependencies }: DeletePetDependencies) =>
  httpEndpoint(deletePet, dependencies, async ({ path, headers }) => {
    await pets.remove(path.petId, expectedVersions(headers['if-match']));
    return noContent();
  });
