import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { dynamoDbConfig, ENV, type Env, requireEnv } from '#shared/config';
import { PetService } from '#shared/domain/pet-service';

/**
 * Composition root of the pet functions: the only place that reads their configuration and
 * builds their adapters. Each entry calls one of these once, at cold start; a missing variable
 * fails the init, loudly. (The authorizer has its own, `api-keys.ts`, so its bundle carries no
 * pet schemas.)
 */

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
