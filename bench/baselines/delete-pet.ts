import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';

/** deletePet's baseline, a raw Lambda entry: one conditional DeleteItem with the same client, nothing else. */
const config = readFunctionConfig(['pets']);
const client = createDocumentClient(config.dynamoDb);
const TableName = tableName(config, 'pets');

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  await client.send(
    new DeleteCommand({
      TableName,
      Key: { id: Number(event.pathParameters?.petId) },
      ConditionExpression: 'attribute_exists(id)',
    }),
  );
  return { statusCode: 204, headers: {}, body: '' };
};
