import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { CallerContext } from '#shared/auth/authorize';

/**
 * A value of `requestContext.authorizer`: the authorizer's `principalId`, or a key of the context it
 * returned. API Gateway hands every context value on as a string ("Output from an API Gateway Lambda
 * authorizer": `"numberKey": "1"`); anything else, or an empty string, is no value.
 */
export const authorizerValue = (
  event: Pick<APIGatewayProxyEvent, 'requestContext'>,
  name: 'principalId' | keyof CallerContext,
): string | undefined => {
  const value: unknown = (event.requestContext?.authorizer as Record<string, unknown> | null | undefined)?.[
    name
  ];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * Who called, on each log line of the request: the key's id (the principal, as the access log's `keyId`)
 * and its scopes, space-separated as the authorizer wrote them. Never the key itself.
 */
export const callerLogKeys = (event: Pick<APIGatewayProxyEvent, 'requestContext'>) => ({
  keyId: authorizerValue(event, 'principalId'),
  scopes: authorizerValue(event, 'scopes'),
});
