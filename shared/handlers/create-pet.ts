import type { PetService } from '#shared/domain/pet-service';
import { httpEndpoint } from '#shared/http/endpoint';
import { petLocation } from '#shared/http/paths';
import { created } from '#shared/http/responses';
import type { Observability } from '#shared/observability/observability';
import { createPet } from '#shared/operations/create-pet';

export interface CreatePetDependencies extends Observability {
  readonly pets: PetService;
}

/** The createPet function: adds a pet; 201 with the pet and where to read it. */
export const createPetHandler = ({ pets, ...observability }: CreatePetDependencies) =>
  httpEndpoint(createPet, observability, async ({ body }) => {
    const pet = await pets.create(body);
    observability.metrics.countPetCreated();
    return created(pet, { Location: petLocation(pet.id) });
  });
