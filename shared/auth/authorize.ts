import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { hashApiKey, isActive, parseBearerToken } from '#shared/auth/api-key';
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

/** The stage's ARN, then `/*\/*`: the policy is cached per token for every route, not just the first. */
export const wholeStageArn = (methodArn: string): string => {
  const [apiArn, stage] = methodArn.split('/');
  if (!apiArn?.startsWith('arn:') || !stage) throw new Error(`Unexpected methodArn: ${methodArn}`);
  return `${apiArn}/${stage}/*/*`;
};

/** `requestContext.authorizer` (`$context.authorizer.*`): names the key and its plan, never holds the key. */
export interface CallerContext {
  readonly keyId: string;
  readonly keyName: string;
  readonly plan: string;
  readonly rateLimitPolicy: string;
}

/** An Allow for the whole stage, with the caller's context and, in AWS, its usage identifier. */
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

/** An Allow for the whole stage for a stored, unrevoked key on one of `plans`; otherwise UnauthorizedError. */
export const authorize = async (
  apiKeys: Pick<ApiKeyRepository, 'findByHash'>,
  authorizationToken: string | undefined,
  methodArn: string,
  plans: Plans,
): Promise<Authorization> => {
  const key = parseBearerToken(authorizationToken);
  if (!key) throw new UnauthorizedError();
  const record = await apiKeys.findByHash(hashApiKey(key));
  if (!record || !isActive(record)) throw new UnauthorizedError();
  const onPlan = planOf(plans, record.plan);
  if (!onPlan) throw new UnknownPlanError(record.plan ?? plans.defaultPlan);
  return {
    principalId: record.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeStageArn(methodArn) }],
    },
    context: {
      keyId: record.keyId,
      keyName: record.name,
      plan: onPlan.name,
      rateLimitPolicy: rateLimitPolicy(onPlan.name, onPlan.plan),
    },
    ...(record.usage ? { usageIdentifierKey: record.usage.value } : {}),
  };
};
