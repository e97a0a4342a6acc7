import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';

/** The authorizer's baseline: the token's hash, one strongly consistent GetItem, an Allow policy. */
const config = readFunctionConfig(['apiKeys']);
const client = createDocumentClient(config.dynamoDb);
const TableName = tableName(config, 'apiKeys');

export const handler = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const keyHash = createHash('sha256').update(event.authorizationToken.slice('Bearer '.length)).digest('hex');
  const { Item } = await client.send(new GetCommand({ TableName, Key: { keyHash }, ConsistentRead: true }));
  if (!Item || Item.revokedAt !== undefined) throw new Error('Unauthorized');
  return {
    principalId: String(Item.keyId),
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
    },
  };
};
