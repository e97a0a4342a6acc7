import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { defineTable } from '#shared/adapters/dynamodb/access';
import { refusedItem, sdkCall } from '#shared/adapters/dynamodb/errors';
import { parseStoredItem } from '#shared/adapters/dynamodb/stored-items';
import { IDEMPOTENCY_TABLE } from '#shared/adapters/dynamodb/table-design';
import type { CreateRecord, IdempotencyKey, InProgressRecord, Lock } from '#shared/domain/idempotency';
import { type Pet, PetId, StoredPet } from '#shared/domain/pet';
import type { IdempotencyStore } from '#shared/ports/idempotency-store';
import { object } from '#shared/schema/objects';

export interface DynamoDbIdempotencyStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly idempotencyTable: string;
  /** Starts every record's key: the operation, so that records outlive a renamed function. */
  readonly keyPrefix: string;
  /** How long a record is kept, and its key taken. */
  readonly retentionSeconds: number;
}

/** The records' layout version, in their key: earlier layouts (Powertools') are never read, and expire. */
const LAYOUT = 'v2';

const IN_PROGRESS = 'IN_PROGRESS';
const COMPLETED = 'COMPLETED';

const StoredRecord = v.variant('status', [
  object({
    status: v.literal(IN_PROGRESS),
    fingerprint: v.string(),
    petId: PetId,
    lockToken: v.string(),
    lockUntil: v.number(),
  }),
  object({ status: v.literal(COMPLETED), fingerprint: v.string(), petId: PetId, pet: StoredPet }),
]);

const toRecord = (item: Record<string, unknown>): CreateRecord => {
  const stored = parseStoredItem(StoredRecord, item, 'idempotency record', item.id);
  return stored.status === COMPLETED
    ? { state: 'completed', fingerprint: stored.fingerprint, pet: stored.pet }
    : {
        state: 'in-progress',
        fingerprint: stored.fingerprint,
        petId: stored.petId,
        lock: { token: stored.lockToken, until: stored.lockUntil },
      };
};

/**
 * One record per caller and key (hashed: neither appears in the table); past `expiration` it counts as
 * absent before TTL deletes it. Writes are conditional, return `ALL_OLD` when refused, and are repeatable.
 */
export class DynamoDbIdempotencyStore implements IdempotencyStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly keyPrefix: string;
  private readonly retentionSeconds: number;

  constructor(options: DynamoDbIdempotencyStoreOptions) {
    this.client = options.client;
    this.table = options.idempotencyTable;
    this.keyPrefix = options.keyPrefix;
    this.retentionSeconds = options.retentionSeconds;
  }

  async start(key: IdempotencyKey, record: InProgressRecord): Promise<CreateRecord> {
    const nowSeconds = Math.floor(Date.now() / 1000);
    try {
      await sdkCall('PutItem', () =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              [IDEMPOTENCY_TABLE.partitionKey.name]: this.idOf(key),
              status: IN_PROGRESS,
              fingerprint: record.fingerprint,
              petId: record.petId,
              lockToken: record.lock.token,
              lockUntil: record.lock.until,
              [IDEMPOTENCY_TABLE.timeToLiveAttribute]: nowSeconds + this.retentionSeconds,
            },
            ConditionExpression: 'attribute_not_exists(#id) OR #expiration < :now',
            ExpressionAttributeNames: this.names(),
            ExpressionAttributeValues: { ':now': nowSeconds },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return record;
    } catch (error) {
      const met = refusedItem(error);
      if (!met) throw new Error('A refused idempotency record put returned no record', { cause: error });
      return toRecord(met);
    }
  }

  async takeOver(key: IdempotencyKey, from: Lock, to: Lock): Promise<CreateRecord | undefined> {
    try {
      const { Attributes } = await sdkCall('UpdateItem', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: this.keyOf(key),
            UpdateExpression: 'SET lockToken = :to, lockUntil = :until',
            ConditionExpression: '#status = :inProgress AND lockToken = :from',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':to': to.token,
              ':until': to.until,
              ':from': from.token,
              ':inProgress': IN_PROGRESS,
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return Attributes ? toRecord(Attributes) : undefined;
    } catch (error) {
      const met = refusedItem(error);
      return met ? toRecord(met) : undefined;
    }
  }

  async complete(key: IdempotencyKey, pet: Pet): Promise<void> {
    await sdkCall('UpdateItem', () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.keyOf(key),
          UpdateExpression: 'SET #status = :completed, pet = :pet REMOVE lockToken, lockUntil',
          // Whoever holds this record's lock now completes it with the same pet.
          ConditionExpression: 'petId = :petId',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':completed': COMPLETED, ':pet': pet, ':petId': pet.id },
        }),
      ),
    );
  }

  async release(key: IdempotencyKey, lock: Lock): Promise<void> {
    try {
      await sdkCall('UpdateItem', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: this.keyOf(key),
            UpdateExpression: 'SET lockUntil = :released',
            ConditionExpression: '#status = :inProgress AND lockToken = :token',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':released': 0, ':inProgress': IN_PROGRESS, ':token': lock.token },
          }),
        ),
      );
    } catch (error) {
      // Completed or taken over meanwhile: the lock is not this request's to end any more.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** `createPet#v2#<SHA-256 of caller and key>`. */
  private idOf({ caller, key }: IdempotencyKey): string {
    const digest = createHash('sha256')
      .update(JSON.stringify([caller, key]))
      .digest('base64url');
    return `${this.keyPrefix}#${LAYOUT}#${digest}`;
  }

  private keyOf(key: IdempotencyKey): Record<string, string> {
    return { [IDEMPOTENCY_TABLE.partitionKey.name]: this.idOf(key) };
  }

  private names(): Record<string, string> {
    return {
      '#id': IDEMPOTENCY_TABLE.partitionKey.name,
      '#expiration': IDEMPOTENCY_TABLE.timeToLiveAttribute,
    };
  }
}

/** The idempotency table as functions use it: records for the operation and retention its contract names. */
export const idempotencyTable = defineTable(
  'idempotency',
  { records: [{ actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'] }] },
  (client, idempotencyTable) => ({
    records: (options: Pick<DynamoDbIdempotencyStoreOptions, 'keyPrefix' | 'retentionSeconds'>) =>
      new DynamoDbIdempotencyStore({ client, idempotencyTable, ...options }),
  }),
);
