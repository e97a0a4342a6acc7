import { listPets } from '#functions/list-pets/contract';
import { listPetsHandler } from '#functions/list-pets/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { petsTablePetService } from '#shared/composition/pets';
import { defineOperationRoot } from '#shared/composition/root';
import { createLogger } from '#shared/observability/logger';

/** listPets' root: the pet repository's listing, on the pets table only. */
export const listPetsRoot = defineOperationRoot(listPets, {
  data: DATA_ACCESS.pets.list,
  build: (config) =>
    listPetsHandler({
      pets: petsTablePetService(config),
      logger: createLogger(config),
      corsOrigins: config.corsOrigins,
    }),
});
