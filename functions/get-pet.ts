import { readOnlyPetService } from '#shared/composition/pets';
import type { PetService } from '#shared/domain/pet-service';
import { GET_PET_DEPRECATION_HEADERS } from '#shared/http/deprecation';
import { httpEndpoint } from '#shared/http/endpoint';
import { getPetRequest } from '#shared/http/request-schemas';
import { ok } from '#shared/http/responses';

/** `GET /pets/{petId}` (deprecated, still served): one pet, with the deprecation headers. */
export const getPet = ({ pets }: { pets: PetService }) =>
  httpEndpoint({ request: getPetRequest, headers: GET_PET_DEPRECATION_HEADERS }, async ({ path }) =>
    ok(await pets.get(path.petId)),
  );

export const handler = getPet({ pets: readOnlyPetService() });
