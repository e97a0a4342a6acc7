import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';

/** getPet's baseline, a raw Lambda entry: one strongly consistent GetItem with the same client, nothing else. */
const config = readFunctionConfig(['pets']);
const client = createDocumentClient(config.dynamoDb);
const TableName = tableName(config, 'pets');

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const { Item } = await client.send(
    new GetCommand({ TableName, Key: { id: Number(event.pathParameters?.petId) }, ConsistentRead: true }),
  );
  return Item
    ? { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(Item) }
    : { statusCode: 404, headers: { 'Content-Type': 'application/json' }, body: '{"code":"NOT_FOUND"}' };
};
