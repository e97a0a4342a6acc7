import { getPet } from '#functions/get-pet/contract';
import { getPetHandler } from '#functions/get-pet/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { petsTablePetService } from '#shared/composition/pets';
import { defineOperationRoot } from '#shared/composition/root';
import { createLogger } from '#shared/observability/logger';

/** getPet's root: one strongly consistent read of the pets table. */
export const getPetRoot = defineOperationRoot(getPet, {
  data: DATA_ACCESS.pets.get,
  build: (config) =>
    getPetHandler({
      pets: petsTablePetService(config),
      logger: createLogger(config),
      corsOrigins: config.corsOrigins,
    }),
});
