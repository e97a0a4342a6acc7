import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';
import { baselineAuthorizer } from '../authorizer';

/** Lambda entry of the authorizer baseline, configured once, at cold start, from the variables the stack sets. */
const config = readFunctionConfig(['apiKeys']);

export const handler = baselineAuthorizer({
  client: createDocumentClient(config.dynamoDb),
  apiKeysTable: tableName(config, 'apiKeys'),
});
