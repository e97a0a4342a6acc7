import { getPet } from '#functions/get-pet/contract';
import { getPetHandler } from '#functions/get-pet/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { readOnlyPetService } from '#shared/composition/pets';
import { defineOperationRoot } from '#shared/composition/root';
import { createObservability } from '#shared/observability/observability';

/** getPet's root: one strongly consistent read of the pets table. */
export const getPetRoot = defineOperationRoot(getPet, {
  data: DATA_ACCESS.pets.get,
  build: (config) =>
    getPetHandler({
      pets: readOnlyPetService(config),
      ...createObservability(config),
      corsOrigins: config.corsOrigins,
    }),
});
