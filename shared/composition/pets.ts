import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { type FunctionConfig, tableName } from '#shared/config';
import { PetService } from '#shared/domain/pet-service';

/** The pet service of the read-only functions: the pets table only. */
export const readOnlyPetService = (
  config: FunctionConfig,
  client: DynamoDBDocumentClient = createDocumentClient(config.dynamoDb),
): PetService =>
  new PetService({
    pets: new DynamoDbPetRepository({
      client,
      petsTable: tableName(config, 'pets'),
      ...(config.legacyStatusIndex ? { legacyStatusIndex: true } : {}),
    }),
  });

/** The pet service of createPet: the pets table and the id sequence's counters table. */
export const writablePetService = (
  config: FunctionConfig,
  client: DynamoDBDocumentClient = createDocumentClient(config.dynamoDb),
): PetService =>
  new PetService({
    pets: new DynamoDbPetRepository({ client, petsTable: tableName(config, 'pets') }),
    ids: new DynamoDbIdSequence({
      client,
      countersTable: tableName(config, 'counters'),
      sequence: PET_ID_SEQUENCE,
    }),
  });
