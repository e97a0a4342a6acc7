import { listPets } from '#functions/list-pets/contract';
import type { PetService } from '#shared/domain/pet-service';
import { type FunctionDependencies, httpEndpoint } from '#shared/http/endpoint';
import { nextPageLink } from '#shared/http/pagination';
import { ok } from '#shared/http/responses';

export interface ListPetsDependencies extends FunctionDependencies {
  readonly pets: PetService;
}

/** The listPets function: one page of pets, optionally of one status, and a `Link` to the next. */
export const listPetsHandler = ({ pets, ...dependencies }: ListPetsDependencies) =>
  httpEndpoint(listPets, dependencies, async ({ query }) => {
    const { limit, status, cursor } = query;
    const page = await pets.list({ limit, status, ...(cursor ? { after: cursor.positions } : {}) });
    return page.next
      ? ok(page.pets, { Link: nextPageLink(listPets.path, { limit, status }, page.next) })
      : ok(page.pets);
  });
