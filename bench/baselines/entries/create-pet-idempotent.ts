import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';
import { baselineCreatePetIdempotent } from '../create-pet-idempotent';

/** Lambda entry of the baseline of createPet with an Idempotency-Key, configured once, at cold start. */
const config = readFunctionConfig(['pets', 'counters', 'idempotency']);

export const handler = baselineCreatePetIdempotent({
  client: createDocumentClient(config.dynamoDb),
  petsTable: tableName(config, 'pets'),
  countersTable: tableName(config, 'counters'),
  idempotencyTable: tableName(config, 'idempotency'),
});
