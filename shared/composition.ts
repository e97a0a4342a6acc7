import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { dynamoDbConfig, ENV, requireEnv } from '#shared/config';
import { PetService } from '#shared/domain/pet-service';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

/**
 * The composition root: the only place that reads configuration and builds adapters. Each Lambda
 * entry calls one of these once, at cold start; a missing variable fails the init, loudly.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The pet service for the read-only functions: no id sequence, no counters table. */
export const readOnlyPetService = (env: Env = process.env): PetService => {
  const client = createDocumentClient(dynamoDbConfig(env));
  return new PetService({
    pets: new DynamoDbPetRepository({ client, petsTable: requireEnv(ENV.petsTable, env) }),
  });
};

/** The pet service for createPet: pets table plus the id sequence. */
export const writablePetService = (env: Env = process.env): PetService => {
  const client = createDocumentClient(dynamoDbConfig(env));
  return new PetService({
    pets: new DynamoDbPetRepository({ client, petsTable: requireEnv(ENV.petsTable, env) }),
    ids: new DynamoDbIdSequence({
      client,
      countersTable: requireEnv(ENV.countersTable, env),
      sequence: PET_ID_SEQUENCE,
    }),
  });
};

export const apiKeyRepository = (env: Env = process.env): ApiKeyRepository =>
  new DynamoDbApiKeyRepository({
    client: createDocumentClient(dynamoDbConfig(env)),
    apiKeysTable: requireEnv(ENV.apiKeysTable, env),
  });
