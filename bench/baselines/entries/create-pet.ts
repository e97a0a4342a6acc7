import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';
import { baselineCreatePet } from '../create-pet';

/** Lambda entry of the createPet baseline, configured once, at cold start, from the variables the stack sets. */
const config = readFunctionConfig(['pets', 'counters']);

export const handler = baselineCreatePet({
  client: createDocumentClient(config.dynamoDb),
  petsTable: tableName(config, 'pets'),
  countersTable: tableName(config, 'counters'),
});
