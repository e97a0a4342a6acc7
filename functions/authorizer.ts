import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { apiKeysTable } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { authorize, isUnauthorized, UnknownPlanError, UnknownScopeError } from '#shared/auth/authorize';
import type { ScopeResources } from '#shared/auth/scopes';
import { defineFunction } from '#shared/composition/function';
import { requirePlans, requireScopes } from '#shared/config';
import { requestDeadline, withinDeadline } from '#shared/deadline';
import type { Plans } from '#shared/fair-use/plans';
import type { TokenAuthorizerHandler } from '#shared/lambda';
import { invocationLogging, type Logger } from '#shared/observability/logger';
import { inSources } from '#shared/observability/source-stack';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

/**
 * Not an operation of the API but the function API Gateway calls before each of them (a TOKEN
 * authorizer): what the stack needs to know of it beyond its function.
 */
export const authorizer = {
  name: 'authorizer',
  // Stryker disable next-line StringLiteral: the function's description in the Lambda console, read by the stack only
  description: 'TOKEN authorizer: Authorization: Bearer <API key>',
  /** Where API Gateway finds the token. */
  identitySource: 'Authorization',
} as const;

export interface AuthorizerDependencies {
  readonly apiKeys: Pick<ApiKeyRepository, 'findByHash'>;
  readonly logger: Logger;
  /** The stage's plans: each key is on one of them. */
  readonly plans: Plans;
  /** Each scope's methods: a key is allowed those of its scopes. */
  readonly scopes: ScopeResources;
}

/**
 * The TOKEN authorizer for `Authorization: Bearer <key>`. The token is never logged: only the
 * outcome and, on success, the key's id, plan and scopes (never its usage identifier). A refused key
 * ends as API Gateway's 401; any other failure as its AUTHORIZER_CONFIGURATION_ERROR (503). Its key lookup
 * has the request's budget from the moment it starts (a TOKEN event carries no request time), so
 * a stalled DynamoDB ends it, and the request, as fast as it ends a function.
 */
export const authorizerHandler = (dependencies: AuthorizerDependencies): TokenAuthorizerHandler =>
  withinDeadline(
    (_event, context) =>
      requestDeadline({
        remainingMs: context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
      }),
    authorizerStack(dependencies),
  );

const authorizerStack = ({
  apiKeys,
  logger,
  plans,
  scopes,
}: AuthorizerDependencies): TokenAuthorizerHandler =>
  middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>()
    // A TOKEN event carries no request id: its lines name the invocation (function_request_id).
    .use(invocationLogging(logger, () => ({})))
    .handler(async (event) => {
      try {
        const result = await authorize(apiKeys, event.authorizationToken, event.methodArn, plans, scopes);
        const { keyId, plan, scopes: held } = result.context;
        logger.info('Key accepted', { keyId, plan, scopes: held });
        return result;
      } catch (error) {
        // A key on a plan the stage does not have is refused like any other, but it is a mistake
        // of the operator's (a plan removed from infra/stage-plans.ts): say which plan.
        if (error instanceof UnknownPlanError)
          logger.warn('Key refused: its plan is not a plan of this stage', { plan: error.plan });
        else if (error instanceof UnknownScopeError)
          logger.warn('Key refused: it holds no scope, or one this stage does not have', {
            scopes: error.scopes.join(' '),
          });
        else if (isUnauthorized(error)) logger.info('Key refused');
        else logger.error('Authorizer failed', { error: inSources(error) });
        throw error;
      }
    });

/**
 * The authorizer's function: a GetItem on the API keys table only, so its bundle carries no pet
 * code; the stage's plans (PETSTORE_PLANS) and its scopes' methods (PETSTORE_SCOPES), required at cold start.
 */
export const authorizerFunction = defineFunction({
  name: authorizer.name,
  uses: { apiKeys: apiKeysTable.allow('findByHash') },
  handler: ({ apiKeys, logger }, config) =>
    authorizerHandler({
      apiKeys,
      logger,
      plans: requirePlans(config ?? {}),
      scopes: requireScopes(config ?? {}),
    }),
});
