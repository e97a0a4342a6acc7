import { deletePet } from '#functions/delete-pet/contract';
import { deletePetHandler } from '#functions/delete-pet/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { petsTablePetService } from '#shared/composition/pets';
import { defineOperationRoot } from '#shared/composition/root';
import { createLogger } from '#shared/observability/logger';

/** deletePet's root: one conditional DeleteItem of the pets table. */
export const deletePetRoot = defineOperationRoot(deletePet, {
  data: DATA_ACCESS.pets.remove,
  build: (config) =>
    deletePetHandler({
      pets: petsTablePetService(config),
      logger: createLogger(config),
      corsOrigins: config.corsOrigins,
    }),
});
