import { getPet } from '#functions/get-pet/contract';
import type { PetService } from '#shared/domain/pet-service';
import { type FunctionDependencies, httpEndpoint } from '#shared/http/endpoint';
import { ok } from '#shared/http/responses';

export interface GetPetDependencies extends FunctionDependencies {
  readonly pets: PetService;
}

/** The getPet function (deprecated, still served): one pet by id. */
export const getPetHandler = ({ pets, ...dependencies }: GetPetDependencies) =>
  httpEndpoint(getPet, dependencies, async ({ path }) => ok(await pets.get(path.petId)));
