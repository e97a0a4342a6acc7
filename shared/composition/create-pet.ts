import { createDynamoDbClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { createIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { writablePetService } from '#shared/composition/pets';
import { defineRoot } from '#shared/composition/root';
import { tableName } from '#shared/config';
import { createPetHandler } from '#shared/handlers/create-pet';
import { createObservability } from '#shared/observability/observability';
import { createPet } from '#shared/operations/create-pet';

/** createPet's root: pets, the id counter and the idempotency records, all on one client. */
export const createPetRoot = defineRoot(createPet.data, (config) => {
  const client = createDynamoDbClient(config.dynamoDb);
  return createPetHandler({
    pets: writablePetService(config, documentClientOf(client)),
    idempotencyStore: createIdempotencyStore({ client, idempotencyTable: tableName(config, 'idempotency') }),
    ...createObservability(config),
    corsOrigins: config.corsOrigins,
  });
});
