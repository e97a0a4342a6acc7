import { writablePetService } from '#shared/composition/pets';
import { defineRoot } from '#shared/composition/root';
import { createPetHandler } from '#shared/handlers/create-pet';
import { createObservability } from '#shared/observability/observability';
import { createPet } from '#shared/operations/create-pet';

export const createPetRoot = defineRoot(createPet.data, (config) =>
  createPetHandler({ pets: writablePetService(config), ...createObservability(config) }),
);
