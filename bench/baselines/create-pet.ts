import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import type { Pet } from '#shared/domain/pet';
import { baselineIds } from './id-block';

/**
 * Baseline of createPet: the same writes with the same conditions (an id from a block leased as
 * the service leases it, then a conditional PutItem of the same item, status shard key
 * included), same client, no middleware and no validation.
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
  const nextId = baselineIds(client, countersTable);
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
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return {
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', Location: `/v1/pets/${pet.id}` },
      body: JSON.stringify(pet),
    };
  };
};
