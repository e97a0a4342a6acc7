import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';

/** listPets' baseline, a raw Lambda entry: the same Scan (Limit 21: a page and one more) and client. */
const config = readFunctionConfig(['pets']);
const client = createDocumentClient(config.dynamoDb);
const TableName = tableName(config, 'pets');

export const handler = async (): Promise<APIGatewayProxyResult> => {
  const { Items = [] } = await client.send(new ScanCommand({ TableName, Limit: 21 }));
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(Items.slice(0, 20)),
  };
};
