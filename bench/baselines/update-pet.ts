import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';

/** updatePet's baseline, a raw Lambda entry: one conditional UpdateItem of the status (and its shard) with the same client. */
const config = readFunctionConfig(['pets']);
const client = createDocumentClient(config.dynamoDb);
const TableName = tableName(config, 'pets');

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const id = Number(event.pathParameters?.petId);
  const { status } = JSON.parse(event.body ?? '{}') as { status: string };
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName,
      Key: { id },
      UpdateExpression: 'SET #status = :status, statusShard = :shard, version = version + :one',
      ConditionExpression: 'attribute_exists(id)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status, ':shard': `${status}#${id % 16}`, ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(Attributes),
  };
};
