import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { nextBlockSize } from '#shared/adapters/dynamodb/id-blocks';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import type { Pet } from '#shared/domain/pet';

/**
 * Baseline of createPet: the same writes with the same conditions (a block of ids leased with an
 * ADD on the counter when the last one is used up, sized as the service sizes it, then a
 * conditional PutItem of the same item, status shard key included), same client, no middleware and no validation. One invocation at a time,
 * as in Lambda, so the block needs no guard against concurrent callers.
 */
export const baselineCreatePet = ({
  client,
  petsTable,
  countersTable,
}: {
  client: DynamoDBDocumentClient;
  petsTable: string;
  countersTable: string;
}) => {
  const block = { next: 1, last: 0, previous: undefined as { size: number; at: number } | undefined };
  const nextId = async (): Promise<number> => {
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
  return async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const body = JSON.parse(event.body ?? '{}') as { name: string; categoryId: number; status?: string };
    const pet = {
      id: await nextId(),
      name: body.name,
      categoryId: body.categoryId,
      status: (body.status ?? 'available') as Pet['status'],
    };
    await client.send(
      new PutCommand({
        TableName: petsTable,
        Item: petItem(pet),
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
    return {
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', Location: `/v1/pets/${pet.id}` },
      body: JSON.stringify(pet),
    };
  };
};
