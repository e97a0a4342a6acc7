import { updatePet } from '#functions/update-pet/contract';
import type { PetService } from '#shared/domain/pet-service';
import { etagOf, expectedVersions } from '#shared/http/conditional';
import type { FunctionDependencies } from '#shared/http/endpoint';
import { jsonEndpoint } from '#shared/http/middleware/json-body';
import { ok } from '#shared/http/responses';

export interface UpdatePetDependencies extends FunctionDependencies {
  readonly pets: PetService;
}

/** The updatePet function: a merge patch of one pet, under its If-Match; the pet and its new ETag. */
export const updatePetHandler = ({ pets, ...dependencies }: UpdatePetDependencies) =>
  jsonEndpoint(updatePet, dependencies, async ({ path, headers, body }) => {
    const { pet, version } = await pets.change(path.petId, body, expectedVersions(headers['if-match']));
    return ok(pet, { ETag: etagOf(version) });
  });
