import { createPet } from '#functions/create-pet/contract';
import { createPetHandler } from '#functions/create-pet/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { writablePetService } from '#shared/composition/pets';
import { defineOperationRoot } from '#shared/composition/root';
import { createLogger } from '#shared/observability/logger';
import { createPetMetrics, NO_METRICS } from '#shared/observability/metrics';

/**
 * createPet's root: pets, the id counter and the idempotency records, all on one client; and
 * PetsCreated, the one function's metric (shared/observability/metrics.ts).
 */
export const createPetRoot = defineOperationRoot(createPet, {
  data: [...DATA_ACCESS.ids.next, ...DATA_ACCESS.pets.create, ...DATA_ACCESS.idempotency.record],
  build: (config) => {
    const logger = createLogger(config);
    return createPetHandler({
      pets: writablePetService(config, {
        keyPrefix: createPet.operationId,
        retentionSeconds: createPet.idempotency.retentionSeconds,
        problems: logger,
      }),
      logger,
      metrics: config.metrics ? createPetMetrics(config) : NO_METRICS,
      corsOrigins: config.corsOrigins,
    });
  },
});
