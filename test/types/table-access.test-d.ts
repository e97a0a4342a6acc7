import { describe, expectTypeOf, it } from 'vitest';
import type { createPetFunction } from '#functions/create-pet';
import type { deletePetFunction } from '#functions/delete-pet';
import { getPet, type getPetFunction } from '#functions/get-pet';
import { ALL_PETS, listPets, PETS_BY_STATUS } from '#functions/list-pets';
import type { updatePetFunction } from '#functions/update-pet';
import type { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { listingsOf, petsTable } from '#shared/adapters/dynamodb/pets-table';
import { operationFunction } from '#shared/composition/function';
import { ANY_VERSION } from '#shared/domain/version-condition';
import { etagOf } from '#shared/http/conditional';
import { httpEndpoint } from '#shared/http/endpoint';
import { ok } from '#shared/http/responses';

/**
 * What a function's `uses` promise at compile time: its handler is given each table as the
 * methods it allows itself, so a call it does not declare (and so is not granted, in IAM or in a
 * local run) fails to compile. `npm run check:types` checks this file, as it does
 * handler-results.test-d.ts.
 */

type Given<F extends { handler: (dependencies: never) => unknown }> = Parameters<F['handler']>[0];

describe("a function's tables", () => {
  it('are given as the methods it allows, and no other', () => {
    expectTypeOf<Given<typeof getPetFunction>['pets']>().toEqualTypeOf<Pick<PetsTable, 'get'>>();
    expectTypeOf<Given<typeof updatePetFunction>['pets']>().toEqualTypeOf<Pick<PetsTable, 'update'>>();
    expectTypeOf<Given<typeof deletePetFunction>['pets']>().toEqualTypeOf<Pick<PetsTable, 'delete'>>();
    expectTypeOf<Given<typeof createPetFunction>['pets']>().toEqualTypeOf<Pick<PetsTable, 'create'>>();
  });

  it('refuse, at compile time, a call the function does not declare', () => {
    const reader = operationFunction(getPet, {
      uses: { pets: petsTable.allow('get') },
      handler: ({ pets, ...dependencies }) =>
        httpEndpoint(getPet, dependencies, async ({ path }) => {
          // @ts-expect-error getPet allows itself `get` only: a delete would be refused by IAM
          await pets.delete(path.petId, ANY_VERSION);
          // @ts-expect-error nor may it list
          await pets.page(ALL_PETS, { limit: 1 });
          const found = await pets.get(path.petId);
          return ok(found?.pet ?? { id: 1, name: 'Rex', categoryId: 1, status: 'sold' }, {
            ETag: etagOf(found?.version ?? 1),
          });
        }),
    });
    expectTypeOf(reader.data).not.toBeAny();
  });

  it('page only the listings the function declares: another would read an index it is not granted', () => {
    const unfiltered = operationFunction(listPets, {
      uses: { pets: listingsOf(ALL_PETS) },
      handler: ({ pets, ...dependencies }) =>
        httpEndpoint(listPets, dependencies, async ({ query }) => {
          // @ts-expect-error it declares the listing of every pet only, not the status index's
          await pets.page(PETS_BY_STATUS, { limit: query.limit, filter: 'sold' });
          return ok((await pets.page(ALL_PETS, { limit: query.limit })).pets);
        }),
    });
    expectTypeOf(unfiltered.data).not.toBeAny();
  });

  it('allow only the methods the table declares calls for', () => {
    // @ts-expect-error the pets table has no `scanEverything` method
    const unknown = petsTable.allow('scanEverything');
    expectTypeOf(unknown).not.toBeAny();
  });
});
