import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { translateSdkError } from '#shared/adapters/dynamodb/errors';
import { IdSpaceExhaustedError } from '#shared/domain/errors';
import { MAX_ID } from '#shared/domain/pet';
import type { IdSequence } from '#shared/ports/id-sequence';

export interface DynamoDbIdSequenceOptions {
  readonly client: DynamoDBDocumentClient;
  readonly countersTable: string;
  /** Key of the counter item; one item per sequence. */
  readonly sequence: string;
}

/** Key of the counter item that hands out pet ids. */
export const PET_ID_SEQUENCE = 'pet-id';

/**
 * An atomic counter item: `ADD value 1` is serialised by DynamoDB, so concurrent callers always
 * get distinct values. An id handed out but never used (a crash before the pet is stored) is
 * skipped, never reused.
 */
export class DynamoDbIdSequence implements IdSequence {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly sequence: string;

  constructor(options: DynamoDbIdSequenceOptions) {
    this.client = options.client;
    this.table = options.countersTable;
    this.sequence = options.sequence;
  }

  async next(): Promise<number> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { name: this.sequence },
          UpdateExpression: 'ADD #value :one',
          // The counter stops at 2^53−1: past it ids would not survive JSON in JavaScript clients.
          ConditionExpression: 'attribute_not_exists(#value) OR #value < :max',
          ExpressionAttributeNames: { '#value': 'value' },
          ExpressionAttributeValues: { ':one': 1, ':max': MAX_ID },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.value);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new IdSpaceExhaustedError();
      }
      throw translateSdkError(error, 'UpdateItem');
    }
  }
}
