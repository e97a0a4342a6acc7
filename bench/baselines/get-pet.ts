import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** Baseline of getPet: one strongly consistent GetItem, same client, no middleware. */
export const baselineGetPet =
  ({ client, petsTable }: { client: DynamoDBDocumentClient; petsTable: string }) =>
  async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const id = Number(event.pathParameters?.petId);
    const { Item } = await client.send(
      new GetCommand({ TableName: petsTable, Key: { id }, ConsistentRead: true }),
    );
    return Item
      ? { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(Item) }
      : { statusCode: 404, headers: { 'Content-Type': 'application/json' }, body: '{"code":"NOT_FOUND"}' };
  };
