import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * Baseline of createPet: the same two writes with the same conditions (counter ADD, then a
 * conditional PutItem), same client, no middleware and no validation.
 */
export const baselineCreatePet =
  ({
    client,
    petsTable,
    countersTable,
  }: {
    client: DynamoDBDocumentClient;
    petsTable: string;
    countersTable: string;
  }) =>
  async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const body = JSON.parse(event.body ?? '{}') as { name: string; categoryId: number; status?: string };
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName: countersTable,
        Key: { name: 'pet-id' },
        UpdateExpression: 'ADD #value :one',
        ConditionExpression: 'attribute_not_exists(#value) OR #value < :max',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1, ':max': Number.MAX_SAFE_INTEGER },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const pet = {
      id: Number(Attributes?.value),
      name: body.name,
      categoryId: body.categoryId,
      status: body.status ?? 'available',
    };
    await client.send(
      new PutCommand({
        TableName: petsTable,
        Item: pet,
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
