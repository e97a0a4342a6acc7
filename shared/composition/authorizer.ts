import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { defineRoot } from '#shared/composition/root';
import { tableName } from '#shared/config';
import { authorizerHandler } from '#shared/handlers/authorizer';
import { createLogger } from '#shared/observability/logger';
import { authorizerFunction } from '#shared/operations/authorizer';

/** The authorizer's root: the API keys table only, so its bundle carries no pet code. */
export const authorizerRoot = defineRoot(authorizerFunction.data, (config) =>
  authorizerHandler({
    apiKeys: new DynamoDbApiKeyRepository({
      client: createDocumentClient(config.dynamoDb),
      apiKeysTable: tableName(config, 'apiKeys'),
    }),
    logger: createLogger(config.logLevel ? { logLevel: config.logLevel } : {}),
  }),
);
