import { readOnlyPetService } from '#shared/composition/pets';
import { defineRoot } from '#shared/composition/root';
import { getPetHandler } from '#shared/handlers/get-pet';
import { createObservability } from '#shared/observability/observability';
import { getPet } from '#shared/operations/get-pet';

export const getPetRoot = defineRoot(getPet.data, (config) =>
  getPetHandler({
    pets: readOnlyPetService(config),
    ...createObservability(config),
    corsOrigins: config.corsOrigins,
  }),
);
