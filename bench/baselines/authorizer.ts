import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';

/**
 * Baseline of the authorizer: hash the bearer token, one strongly consistent GetItem on the key
 * table (as the service reads it, so that a revoked key is never read as valid), an Allow policy.
 * Same client, no middleware, no logger.
 */
export const baselineAuthorizer =
  ({ client, apiKeysTable }: { client: DynamoDBDocumentClient; apiKeysTable: string }) =>
  async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const key = event.authorizationToken.slice('Bearer '.length);
    const keyHash = createHash('sha256').update(key, 'utf8').digest('hex');
    const { Item } = await client.send(
      new GetCommand({ TableName: apiKeysTable, Key: { keyHash }, ConsistentRead: true }),
    );
    if (!Item || Item.revokedAt !== undefined) throw new Error('Unauthorized');
    return {
      principalId: String(Item.keyId),
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
      },
    };
  };
