import { authorizer } from '#functions/authorizer/contract';
import { authorizerHandler } from '#functions/authorizer/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { defineRoot } from '#shared/composition/root';
import { requirePlans, tableName } from '#shared/config';
import { createLogger } from '#shared/observability/logger';

/**
 * The authorizer's root: a GetItem on the API keys table only, so its bundle carries no pet code;
 * and the stage's plans (PETSTORE_PLANS), required at cold start.
 */
export const authorizerRoot = defineRoot({
  name: authorizer.name,
  data: DATA_ACCESS.apiKeys.findByHash,
  build: (config) =>
    authorizerHandler({
      apiKeys: new DynamoDbApiKeyRepository({
        client: createDocumentClient(config.dynamoDb),
        apiKeysTable: tableName(config, 'apiKeys'),
      }),
      logger: createLogger(config.logLevel ? { logLevel: config.logLevel } : {}),
      plans: requirePlans(config),
    }),
});
