import { updatePet } from '#functions/update-pet/contract';
import { updatePetHandler } from '#functions/update-pet/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { petsTablePetService } from '#shared/composition/pets';
import { defineOperationRoot } from '#shared/composition/root';
import { createLogger } from '#shared/observability/logger';

/** updatePet's root: one conditional UpdateItem of the pets table. */
export const updatePetRoot = defineOperationRoot(updatePet, {
  data: DATA_ACCESS.pets.update,
  build: (config) =>
    updatePetHandler({
      pets: petsTablePetService(config),
      logger: createLogger(config),
      corsOrigins: config.corsOrigins,
    }),
});
