import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';
import { baselineListPets } from '../list-pets';

/** Lambda entry of the listPets baseline, configured once, at cold start, from the variables the stack sets. */
const config = readFunctionConfig(['pets']);

export const handler = baselineListPets({
  client: createDocumentClient(config.dynamoDb),
  petsTable: tableName(config, 'pets'),
});
