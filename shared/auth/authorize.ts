import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { hashApiKey, heldScopes, isActive, parseBearerToken } from '#shared/auth/api-key';
import { inScopeOrder, isScope, type Scope, type ScopeResources, scopeList } from '#shared/auth/scopes';
import { type Plans, planOf } from '#shared/fair-use/plans';
import { rateLimitPolicy } from '#shared/http/rate-limit-policy';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

/** API Gateway answers 401 for this exact message; any other failure is a 503 (AUTHORIZER_OUTCOMES). */
export class UnauthorizedError extends Error {
  override readonly name = 'UnauthorizedError';
  constructor() {
    super('Unauthorized');
  }
}

export const isUnauthorized = (error: unknown): error is UnauthorizedError =>
  error instanceof UnauthorizedError;

/** The stage's ARN (`arn:aws:execute-api:<region>:<account>:<api id>/<stage>`) of a method ARN. */
export const stageArnOf = (methodArn: string): string => {
  const [apiArn, stage] = methodArn.split('/');
  if (!apiArn?.startsWith('arn:') || !stage) throw new Error(`Unexpected methodArn: ${methodArn}`);
  return `${apiArn}/${stage}`;
};

/**
 * The method ARNs of `scopes` on the stage of `methodArn`: every method of those scopes, whichever
 * one was asked for, since API Gateway caches the policy per token and applies it to every route.
 */
export const scopedMethodArns = (
  methodArn: string,
  scopes: readonly Scope[],
  resources: ScopeResources,
): string[] => {
  const stage = stageArnOf(methodArn);
  return [...new Set(scopes.flatMap((scope) => resources[scope]))].map((resource) => `${stage}/${resource}`);
};

/** `requestContext.authorizer` (`$context.authorizer.*`): names the key, its plan and scopes, never holds the key. */
export interface CallerContext {
  readonly keyId: string;
  readonly keyName: string;
  readonly plan: string;
  readonly rateLimitPolicy: string;
  /** Space-separated (`read:pets write:pets`), as OAuth 2.0 writes `scope`. */
  readonly scopes: string;
}

/** An Allow for the methods of the key's scopes, with the caller's context and, in AWS, its usage identifier. */
export type Authorization = APIGatewayAuthorizerResult & {
  readonly context: CallerContext;
  readonly usageIdentifierKey?: string;
};

/** A key whose record names a plan the stage does not have: an operator's mistake, refused. */
export class UnknownPlanError extends UnauthorizedError {
  constructor(readonly plan: string) {
    super();
  }
}

/** A key whose record names a scope the stage does not have, or none at all: an operator's mistake, refused. */
export class UnknownScopeError extends UnauthorizedError {
  constructor(readonly scopes: readonly string[]) {
    super();
  }
}

const scopesOf = (held: readonly string[]): Scope[] => {
  if (held.length === 0 || !held.every(isScope)) throw new UnknownScopeError(held);
  return inScopeOrder(held);
};

/**
 * An Allow of exactly the method ARNs of its scopes for a stored, unrevoked key on one of `plans`;
 * otherwise UnauthorizedError. A method outside them is API Gateway's own 403 (ACCESS_DENIED).
 */
export const authorize = async (
  apiKeys: Pick<ApiKeyRepository, 'findByHash'>,
  authorizationToken: string | undefined,
  methodArn: string,
  plans: Plans,
  scopeResources: ScopeResources,
): Promise<Authorization> => {
  const key = parseBearerToken(authorizationToken);
  if (!key) throw new UnauthorizedError();
  const record = await apiKeys.findByHash(hashApiKey(key));
  if (!record || !isActive(record)) throw new UnauthorizedError();
  const onPlan = planOf(plans, record.plan);
  if (!onPlan) throw new UnknownPlanError(record.plan ?? plans.defaultPlan);
  const scopes = scopesOf(heldScopes(record));
  return {
    principalId: record.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        {
          Action: 'execute-api:Invoke',
          Effect: 'Allow',
          Resource: scopedMethodArns(methodArn, scopes, scopeResources),
        },
      ],
    },
    context: {
      keyId: record.keyId,
      keyName: record.name,
      plan: onPlan.name,
      rateLimitPolicy: rateLimitPolicy(onPlan.name, onPlan.plan),
      scopes: scopeList(scopes),
    },
    ...(record.usage ? { usageIdentifierKey: record.usage.value } : {}),
  };
};
