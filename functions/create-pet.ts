import { writablePetService } from '#shared/composition/pets';
import type { PetService } from '#shared/domain/pet-service';
import { httpEndpoint } from '#shared/http/endpoint';
import { createPetRequest } from '#shared/http/request-schemas';
import { created } from '#shared/http/responses';
import { countPetCreated } from '#shared/observability/metrics';

/** `POST /pets`: adds a pet; 201 with the pet and its `Location`. */
export const createPet = ({ pets }: { pets: PetService }) =>
  httpEndpoint({ request: createPetRequest }, async ({ body }) => {
    const pet = await pets.create(body);
    countPetCreated();
    return created(pet);
  });

export const handler = createPet({ pets: writablePetService() });
