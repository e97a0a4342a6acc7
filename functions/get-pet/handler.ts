import { getPet } from '#functions/get-pet/contract';
import type { PetService } from '#shared/domain/pet-service';
import { etagOf } from '#shared/http/conditional';
import { type FunctionDependencies, httpEndpoint } from '#shared/http/endpoint';
import { ok } from '#shared/http/responses';

export interface GetPetDependencies extends FunctionDependencies {
  readonly pets: PetService;
}

/** The getPet function (deprecated, still served): one pet by id, and its ETag. */
export const getPetHandler = ({ pets, ...dependencies }: GetPetDependencies) =>
  httpEndpoint(getPet, dependencies, async ({ path }) => {
    const { pet, version } = await pets.get(path.petId);
    return ok(pet, { ETag: etagOf(version) });
  });
