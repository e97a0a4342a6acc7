import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorize, UNAUTHORIZED } from '#shared/auth/authorize';
import { apiKeyRepository } from '#shared/composition/api-keys';
import { logger } from '#shared/observability/logger';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

/**
 * TOKEN authorizer for `Authorization: Bearer <key>`. The token is never logged: only the outcome
 * and, on success, the key's id.
 */
export const authorizer = ({ apiKeys }: { apiKeys: ApiKeyRepository }) =>
  middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event) => {
      try {
        const result = await authorize(apiKeys, event.authorizationToken, event.methodArn);
        logger.info('Key accepted', { keyId: result.context.keyId });
        return result;
      } catch (error) {
        if (error instanceof Error && error.message === UNAUTHORIZED) logger.info('Key refused');
        else logger.error('Authorizer failed', { error });
        throw error;
      }
    });

export const handler = authorizer({ apiKeys: apiKeyRepository() });
