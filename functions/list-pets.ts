import { readOnlyPetService } from '#shared/composition/pets';
import type { PetService } from '#shared/domain/pet-service';
import { httpEndpoint } from '#shared/http/endpoint';
import { listPetsRequest } from '#shared/http/request-schemas';
import { ok } from '#shared/http/responses';

/** `GET /pets`: one page of pets, optionally only those with a given status. */
export const listPets = ({ pets }: { pets: PetService }) =>
  httpEndpoint({ request: listPetsRequest }, async ({ query }) => ok(await pets.list(query)));

export const handler = listPets({ pets: readOnlyPetService() });
