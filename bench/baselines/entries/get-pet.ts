import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';
import { baselineGetPet } from '../get-pet';

/** Lambda entry of the getPet baseline, configured once, at cold start, from the variables the stack sets. */
const config = readFunctionConfig(['pets']);

export const handler = baselineGetPet({
  client: createDocumentClient(config.dynamoDb),
  petsTable: tableName(config, 'pets'),
});
