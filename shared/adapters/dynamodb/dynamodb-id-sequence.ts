import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { defineTable } from '#shared/adapters/dynamodb/access';
import { translateSdkError } from '#shared/adapters/dynamodb/errors';
import { nextBlockSize } from '#shared/adapters/dynamodb/id-blocks';
import { IdSpaceExhaustedError } from '#shared/domain/errors';
import { MAX_ID } from '#shared/domain/pet';
import type { IdSequence } from '#shared/ports/id-sequence';

export interface DynamoDbIdSequenceOptions {
  readonly client: DynamoDBDocumentClient;
  readonly countersTable: string;
  readonly sequence: string;
  /** The clock block sizes are paced by. @default performance.now */
  readonly now?: () => number;
}

export const PET_ID_SEQUENCE = 'pet-id';

/** The counter's value in a refused conditional update (its old item, in DynamoDB's own format). */
const counterIn = (error: ConditionalCheckFailedException): number | undefined => {
  const value = error.Item?.value?.N;
  return value === undefined ? undefined : Number(value);
};

/** Ids in blocks (hi/lo) leased by one atomic `ADD`: unused or lost blocks leave gaps, never duplicates. */
export class DynamoDbIdSequence implements IdSequence {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly sequence: string;
  private readonly now: () => number;
  /** The next id to hand out, and the last of the block: empty when next > last. */
  private nextId = 1;
  private lastId = 0;
  private leasing: Promise<void> | undefined;
  private waiting = 0;
  private previous: { readonly size: number; readonly at: number } | undefined;

  constructor(options: DynamoDbIdSequenceOptions) {
    this.client = options.client;
    this.table = options.countersTable;
    this.sequence = options.sequence;
    this.now = options.now ?? (() => performance.now());
  }

  async next(): Promise<number> {
    while (this.nextId > this.lastId) {
      this.waiting += 1;
      try {
        this.leasing ??= this.lease().finally(() => {
          this.leasing = undefined;
        });
        await this.leasing;
      } finally {
        this.waiting -= 1;
      }
    }
    const id = this.nextId;
    this.nextId += 1;
    return id;
  }

  private async lease(): Promise<void> {
    const at = this.now();
    const size = nextBlockSize({
      waiting: this.waiting,
      ...(this.previous ? { previous: this.previous.size, elapsedMs: at - this.previous.at } : {}),
    });
    const block = await this.reserve(size);
    this.nextId = block.last - block.size + 1;
    this.lastId = block.last;
    this.previous = { size: block.size, at };
  }

  /** Moves the counter up by `size` (by what is left when fewer ids are left): the block leased. */
  private async reserve(size: number): Promise<{ readonly last: number; readonly size: number }> {
    try {
      return { last: await this.add(size), size };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw translateSdkError(error, 'UpdateItem');
      // Fewer than `size` ids are left below 2^53−1: take what is left, if anything.
      const left = MAX_ID - (counterIn(error) ?? MAX_ID);
      if (left <= 0) throw new IdSpaceExhaustedError();
      try {
        return { last: await this.add(left), size: left };
      } catch (retryError) {
        if (retryError instanceof ConditionalCheckFailedException) throw new IdSpaceExhaustedError();
        throw translateSdkError(retryError, 'UpdateItem');
      }
    }
  }

  private async add(size: number): Promise<number> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { name: this.sequence },
        UpdateExpression: 'ADD #value :size',
        // The block ends at 2^53−1 at most: past it ids would not survive JSON in JavaScript clients.
        ConditionExpression: 'attribute_not_exists(#value) OR #value <= :highestStart',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':size': size, ':highestStart': MAX_ID - size },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return Number(Attributes?.value);
  }
}

/** The counters table as functions use it: pet ids, an atomic ADD once per block (hi/lo). */
export const petIdsTable = defineTable(
  'counters',
  { next: [{ actions: ['dynamodb:UpdateItem'] }] },
  (client, countersTable) => new DynamoDbIdSequence({ client, countersTable, sequence: PET_ID_SEQUENCE }),
);
