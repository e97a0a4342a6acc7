import type { PetService } from '#shared/domain/pet-service';
import { httpEndpoint } from '#shared/http/endpoint';
import { ok } from '#shared/http/responses';
import type { Observability } from '#shared/observability/observability';
import { getPet } from '#shared/operations/get-pet';

export interface GetPetDependencies extends Observability {
  readonly pets: PetService;
}

/** The getPet function (deprecated, still served): one pet by id. */
export const getPetHandler = ({ pets, ...observability }: GetPetDependencies) =>
  httpEndpoint(getPet, observability, async ({ path }) => ok(await pets.get(path.petId)));
