import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorize, isUnauthorized } from '#shared/auth/authorize';
import type { TokenAuthorizerHandler } from '#shared/lambda';
import { invocationLogger, type Logger } from '#shared/observability/logger';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

export interface AuthorizerDependencies {
  readonly apiKeys: ApiKeyRepository;
  readonly logger: Logger;
}

/**
 * The TOKEN authorizer for `Authorization: Bearer <key>`. The token is never logged: only the
 * outcome and, on success, the key's id. A refused key ends as API Gateway's 401; any other
 * failure as its AUTHORIZER_FAILURE (503).
 */
export const authorizerHandler = ({ apiKeys, logger }: AuthorizerDependencies): TokenAuthorizerHandler =>
  middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>().handler(async (event, context) => {
    // A TOKEN event carries no request id: the lines name the invocation (function_request_id).
    const log = invocationLogger(logger, context);
    try {
      const result = await authorize(apiKeys, event.authorizationToken, event.methodArn);
      log.info('Key accepted', { keyId: result.context.keyId });
      return result;
    } catch (error) {
      if (isUnauthorized(error)) log.info('Key refused');
      else log.error('Authorizer failed', { error });
      throw error;
    }
  });
