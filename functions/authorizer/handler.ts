import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorize, isUnauthorized } from '#shared/auth/authorize';
import { requestDeadline, withinDeadline } from '#shared/deadline';
import type { TokenAuthorizerHandler } from '#shared/lambda';
import { type Logger, withInvocationLogger } from '#shared/observability/logger';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

export interface AuthorizerDependencies {
  readonly apiKeys: ApiKeyRepository;
  readonly logger: Logger;
}

/**
 * The TOKEN authorizer for `Authorization: Bearer <key>`. The token is never logged: only the
 * outcome and, on success, the key's id. A refused key ends as API Gateway's 401; any other
 * failure as its AUTHORIZER_FAILURE (503). Its key lookup has the request's budget from the
 * moment it starts (a TOKEN event carries no request time), so a stalled DynamoDB ends it, and
 * the request, as fast as it ends a function.
 */
export const authorizerHandler = ({ apiKeys, logger }: AuthorizerDependencies): TokenAuthorizerHandler =>
  // A TOKEN event carries no request id: its lines name the invocation (function_request_id).
  withInvocationLogger(
    logger,
    () => undefined,
    withinDeadline(
      (_event, context) =>
        requestDeadline({
          remainingMs: context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
        }),
      authorizerStack({ apiKeys, logger }),
    ),
  );

const authorizerStack = ({ apiKeys, logger }: AuthorizerDependencies): TokenAuthorizerHandler =>
  middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>().handler(async (event) => {
    try {
      const result = await authorize(apiKeys, event.authorizationToken, event.methodArn);
      logger.info('Key accepted', { keyId: result.context.keyId });
      return result;
    } catch (error) {
      if (isUnauthorized(error)) logger.info('Key refused');
      else logger.error('Authorizer failed', { error });
      throw error;
    }
  });
