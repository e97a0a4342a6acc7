import type { PetService } from '#shared/domain/pet-service';
import { httpEndpoint } from '#shared/http/endpoint';
import { ok } from '#shared/http/responses';
import type { Observability } from '#shared/observability/observability';
import { listPets } from '#shared/operations/list-pets';

export interface ListPetsDependencies extends Observability {
  readonly pets: PetService;
}

/** The listPets function: one page of pets, optionally of one status. */
export const listPetsHandler = ({ pets, ...observability }: ListPetsDependencies) =>
  httpEndpoint(listPets, observability, async ({ query }) => ok(await pets.list(query)));
