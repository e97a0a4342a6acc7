import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';

/**
 * Baseline of listPets: the same DynamoDB call (Scan, Limit 21: a page of 20 and the one item
 * that tells whether another page follows) with the same client, and nothing else: no
 * middleware, no validation, no logger, no cursor. What the benchmark compares listPets against.
 */
export const baselineListPets =
  ({ client, petsTable }: { client: DynamoDBDocumentClient; petsTable: string }) =>
  async (): Promise<APIGatewayProxyResult> => {
    const { Items = [] } = await client.send(new ScanCommand({ TableName: petsTable, Limit: 21 }));
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(Items.slice(0, 20)),
    };
  };
