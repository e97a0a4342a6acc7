import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { translateSdkError } from '#shared/adapters/dynamodb/errors';
import { IDEMPOTENCY_TABLE } from '#shared/adapters/dynamodb/table-design';

export interface DynamoDbIdempotencyStoreOptions {
  /** The function's own client (client.ts), so the records' calls keep its time budget. */
  readonly client: DynamoDBClient;
  readonly idempotencyTable: string;
}

/**
 * Powertools' DynamoDB persistence of idempotency records, on the idempotency table of
 * `table-design.ts` (partition key `id`, TTL on `expiration`), with the SDK's failures translated
 * as every adapter here translates them: a throttled, failing or timed-out call becomes the
 * domain's StoreUnavailableError (a 503 once it reaches the HTTP layer). Powertools' own signals
 * (a record that already exists, or does not) pass through untouched, as every error that is not
 * a transient SDK failure does: its handler acts on them.
 */
class TranslatingPersistenceLayer extends DynamoDBPersistenceLayer {
  protected override async _putRecord(record: IdempotencyRecord): Promise<void> {
    await translated('PutItem', () => super._putRecord(record));
  }

  protected override async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    return translated('GetItem', () => super._getRecord(idempotencyKey));
  }

  protected override async _updateRecord(record: IdempotencyRecord): Promise<void> {
    await translated('UpdateItem', () => super._updateRecord(record));
  }

  protected override async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    await translated('DeleteItem', () => super._deleteRecord(record));
  }
}

const translated = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    throw translateSdkError(error, operation);
  }
};

/** The store createPet keeps its idempotency records in. */
export const createIdempotencyStore = (options: DynamoDbIdempotencyStoreOptions): BasePersistenceLayer =>
  new TranslatingPersistenceLayer({
    tableName: options.idempotencyTable,
    awsSdkV3Client: options.client,
    keyAttr: IDEMPOTENCY_TABLE.partitionKey.name,
    expiryAttr: IDEMPOTENCY_TABLE.timeToLiveAttribute,
  });
