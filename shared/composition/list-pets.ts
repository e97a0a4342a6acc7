import { readOnlyPetService } from '#shared/composition/pets';
import { defineRoot } from '#shared/composition/root';
import { listPetsHandler } from '#shared/handlers/list-pets';
import { createObservability } from '#shared/observability/observability';
import { listPets } from '#shared/operations/list-pets';

export const listPetsRoot = defineRoot(listPets.data, (config) =>
  listPetsHandler({
    pets: readOnlyPetService(config),
    ...createObservability(config),
    corsOrigins: config.corsOrigins,
  }),
);
