import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { dynamoDbConfig, ENV, type Env, requireEnv } from '#shared/config';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

/** Composition root of the authorizer (and key administration): the API keys table only. */
export const apiKeyRepository = (env: Env = process.env): ApiKeyRepository =>
  new DynamoDbApiKeyRepository({
    client: createDocumentClient(dynamoDbConfig(env)),
    apiKeysTable: requireEnv(ENV.apiKeysTable, env),
  });
