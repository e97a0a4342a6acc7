import { createPet } from '#functions/create-pet/contract';
import { createPetHandler } from '#functions/create-pet/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { writablePetService } from '#shared/composition/pets';
import { defineOperationRoot } from '#shared/composition/root';
import { createObservability } from '#shared/observability/observability';

/** createPet's root: pets, the id counter and the idempotency records, all on one client. */
export const createPetRoot = defineOperationRoot(createPet, {
  data: [...DATA_ACCESS.ids.next, ...DATA_ACCESS.pets.create, ...DATA_ACCESS.idempotency.record],
  build: (config) => {
    const observability = createObservability(config);
    return createPetHandler({
      pets: writablePetService(config, {
        keyPrefix: createPet.operationId,
        retentionSeconds: createPet.idempotency.retentionSeconds,
        problems: observability.logger,
      }),
      ...observability,
      corsOrigins: config.corsOrigins,
    });
  },
});
