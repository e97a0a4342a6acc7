import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { type FunctionConfig, tableName } from '#shared/config';
import { REQUEST_BUDGET_MS } from '#shared/deadline';
import { PetService, type ProblemLog } from '#shared/domain/pet-service';

/** The pet service of the functions that use the pets table alone: reads, changes, removals. */
export const petsTablePetService = (
  config: FunctionConfig,
  client: DynamoDBDocumentClient = createDocumentClient(config.dynamoDb),
): PetService =>
  new PetService({
    pets: new DynamoDbPetRepository({ client, petsTable: tableName(config, 'pets') }),
  });

/** What createPet's records need from its contract, and where the service reports. */
export interface WritablePetServiceOptions {
  /** Starts every record's key: the operation's id. */
  readonly keyPrefix: string;
  /** How long a key and its answer are kept: the contract's idempotency rule. */
  readonly retentionSeconds: number;
  readonly problems: ProblemLog;
}

/**
 * The pet service of createPet: the pets table, the id sequence's counters table, and the
 * idempotency records. A record's lock lasts as long as a request may: past it, the request
 * has given up, and a retry may take over.
 */
export const writablePetService = (
  config: FunctionConfig,
  { keyPrefix, retentionSeconds, problems }: WritablePetServiceOptions,
  client: DynamoDBDocumentClient = createDocumentClient(config.dynamoDb),
): PetService =>
  new PetService({
    pets: new DynamoDbPetRepository({ client, petsTable: tableName(config, 'pets') }),
    ids: new DynamoDbIdSequence({
      client,
      countersTable: tableName(config, 'counters'),
      sequence: PET_ID_SEQUENCE,
    }),
    records: new DynamoDbIdempotencyStore({
      client,
      idempotencyTable: tableName(config, 'idempotency'),
      keyPrefix,
      retentionSeconds,
    }),
    lockMs: REQUEST_BUDGET_MS,
    problems,
  });
