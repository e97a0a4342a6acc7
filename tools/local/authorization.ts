import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import { AUTHORIZER_OUTCOMES, type AuthorizerOutcome } from '#shared/http/gateway-behaviour';
import type { TokenAuthorizerHandler } from '#shared/lambda';
import { lambdaContext } from '#tools/lambda/context';
import { tokenAuthorizerEvent } from '#tools/lambda/events';
import { TIMED_OUT, withinTimeout } from '#tools/lambda/timeout';
import { GatewayRefusal } from '#tools/local/gateway-refusal';

/** The TOKEN authorizer step: each ending is an AUTHORIZER_OUTCOMES outcome (gateway-behaviour.ts cites AWS). */

/** IAM-style wildcard match of a policy resource against a method ARN. */
export const arnMatches = (pattern: string, arn: string): boolean => {
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return regex.test(arn);
};

const statementsOf = (result: APIGatewayAuthorizerResult) =>
  (result.policyDocument?.Statement ?? []).flatMap((statement) => {
    const resources = 'Resource' in statement ? statement.Resource : undefined;
    return [resources ?? []]
      .flat()
      .map((resource) => ({ effect: statement.Effect, resource: String(resource) }));
  });

/** Allow only when some Allow statement covers the method ARN and no Deny does, as IAM decides. */
export const policyAllows = (result: APIGatewayAuthorizerResult, arn: string): boolean => {
  const applicable = statementsOf(result).filter(({ resource }) => arnMatches(resource, arn));
  return (
    applicable.some(({ effect }) => effect === 'Allow') && !applicable.some(({ effect }) => effect === 'Deny')
  );
};

/**
 * "Output from an Amazon API Gateway Lambda authorizer": it "must include the principal identifier
 * (principalId) and a policy document (policyDocument) containing a list of policy statements".
 */
const isAuthorizerResult = (value: unknown): value is APIGatewayAuthorizerResult => {
  const result = value as Partial<APIGatewayAuthorizerResult> | null;
  return (
    typeof result?.principalId === 'string' &&
    Array.isArray(result.policyDocument?.Statement) &&
    (result.context === undefined || (typeof result.context === 'object' && result.context !== null))
  );
};

const VALID_TOKEN = new RegExp(IDENTITY_VALIDATION_EXPRESSION);

const refusal = (outcome: AuthorizerOutcome) => GatewayRefusal.of(AUTHORIZER_OUTCOMES[outcome]);

export interface AuthorizeOptions {
  readonly authorizer: TokenAuthorizerHandler;
  /** Every `Authorization` header of the request. */
  readonly tokens: readonly string[];
  readonly methodArn: string;
  /** The authorizer's Lambda timeout. */
  readonly timeoutMs: number;
  /** As the authorizer's invocation id, so one `grep` finds a request's lines. */
  readonly requestId?: string;
}

/** The authorizer's result for a request that may proceed; throws GatewayRefusal otherwise. */
export const authorizeRequest = async (options: AuthorizeOptions): Promise<APIGatewayAuthorizerResult> => {
  const [token, ...more] = options.tokens;
  // Two Authorization headers are refused rather than resolved by picking one.
  if (!token || more.length > 0) throw refusal('noToken');
  if (!VALID_TOKEN.test(token)) throw refusal('invalidToken');
  let result: unknown;
  try {
    const invocation = options.authorizer(
      tokenAuthorizerEvent(token, options.methodArn),
      lambdaContext('authorizer', {
        timeoutMs: options.timeoutMs,
        ...(options.requestId ? { awsRequestId: options.requestId } : {}),
      }),
    );
    result = await withinTimeout(invocation, options.timeoutMs);
  } catch (error) {
    // What API Gateway sees of a failed invocation is its error message.
    throw refusal(
      (error as { message?: unknown } | null)?.message === 'Unauthorized' ? 'unauthorized' : 'error',
    );
  }
  if (result === TIMED_OUT) throw refusal('timeout');
  if (!isAuthorizerResult(result)) throw refusal('malformed');
  if (!policyAllows(result, options.methodArn)) throw refusal('deny');
  return result;
};
