import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nextBlockSize } from '#shared/adapters/dynamodb/id-blocks';

/** Ids leased in blocks as the service does (shared/adapters/dynamodb/id-blocks.ts). */
export const baselineIds = (client: DynamoDBDocumentClient, countersTable: string) => {
  const block = { next: 1, last: 0, previous: undefined as { size: number; at: number } | undefined };
  return async (): Promise<number> => {
    if (block.next > block.last) {
      const at = performance.now();
      const size = nextBlockSize({
        waiting: 1,
        ...(block.previous ? { previous: block.previous.size, elapsedMs: at - block.previous.at } : {}),
      });
      const { Attributes } = await client.send(
        new UpdateCommand({
          TableName: countersTable,
          Key: { name: 'pet-id' },
          UpdateExpression: 'ADD #value :size',
          ConditionExpression: 'attribute_not_exists(#value) OR #value <= :highestStart',
          ExpressionAttributeNames: { '#value': 'value' },
          ExpressionAttributeValues: { ':size': size, ':highestStart': Number.MAX_SAFE_INTEGER - size },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      block.last = Number(Attributes?.value);
      block.next = block.last - size + 1;
      block.previous = { size, at };
    }
    block.next += 1;
    return block.next - 1;
  };
};
