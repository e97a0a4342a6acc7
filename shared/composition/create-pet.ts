import { writablePetService } from '#shared/composition/pets';
import { defineRoot } from '#shared/composition/root';
import { createPetHandler } from '#shared/handlers/create-pet';
import { createObservability } from '#shared/observability/observability';
import { createPet } from '#shared/operations/create-pet';

/** createPet's root: pets, the id counter and the idempotency records, all on one client. */
export const createPetRoot = defineRoot(createPet.data, (config) => {
  const observability = createObservability(config);
  return createPetHandler({
    pets: writablePetService(config, observability.logger),
    ...observability,
    corsOrigins: config.corsOrigins,
  });
});
