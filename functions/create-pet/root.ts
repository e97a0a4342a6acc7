import { createPet } from '#functions/create-pet/contract';
import { createPetHandler } from '#functions/create-pet/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { createDynamoDbClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { createIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { writablePetService } from '#shared/composition/pets';
import { defineOperationRoot } from '#shared/composition/root';
import { tableName } from '#shared/config';
import { createObservability } from '#shared/observability/observability';

/** createPet's root: pets, the id counter and the idempotency records, all on one client. */
export const createPetRoot = defineOperationRoot(createPet, {
  data: [...DATA_ACCESS.ids.next, ...DATA_ACCESS.pets.create, ...DATA_ACCESS.idempotency.record],
  build: (config) => {
    const client = createDynamoDbClient(config.dynamoDb);
    return createPetHandler({
      pets: writablePetService(config, documentClientOf(client)),
      idempotencyStore: createIdempotencyStore({
        client,
        idempotencyTable: tableName(config, 'idempotency'),
      }),
      ...createObservability(config),
      corsOrigins: config.corsOrigins,
    });
  },
});
