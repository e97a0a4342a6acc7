import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { isUnauthorized } from '#shared/auth/authorize';
import type { TokenAuthorizerHandler } from '#shared/lambda';
import { lambdaContext } from '#tools/lambda/context';
import { tokenAuthorizerEvent } from '#tools/lambda/events';
import { GatewayRefusal } from '#tools/local/gateway-refusal';

/**
 * The authorizer step of the local gateway, as API Gateway runs a TOKEN authorizer: no token, no
 * call (401); a refused key is 401; any other failure is AUTHORIZER_FAILURE; and the returned
 * policy is evaluated against the method ARN, an Allow that does not cover it being a Deny.
 */

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

export interface AuthorizeOptions {
  readonly authorizer: TokenAuthorizerHandler;
  /** Every value of the `Authorization` header the request carried. */
  readonly tokens: readonly string[];
  readonly methodArn: string;
  /** The authorizer's Lambda timeout, as its context reports it. */
  readonly timeoutMs: number;
  /**
   * The request's id. A TOKEN event has no room for it, so in AWS the authorizer's lines name
   * only its own invocation; here its invocation takes the request's id, and a request's lines,
   * the authorizer's included, are found by that one id.
   */
  readonly requestId?: string;
}

/** The authorizer's result for a request that may proceed; throws GatewayRefusal otherwise. */
export const authorizeRequest = async (options: AuthorizeOptions): Promise<APIGatewayAuthorizerResult> => {
  const [token, ...more] = options.tokens;
  // API Gateway does not call a TOKEN authorizer when the identity source is missing; two
  // Authorization headers are refused rather than resolved by picking one.
  if (!token || more.length > 0) throw GatewayRefusal.of('UNAUTHORIZED');
  let result: APIGatewayAuthorizerResult;
  try {
    result = await options.authorizer(
      tokenAuthorizerEvent(token, options.methodArn),
      lambdaContext('authorizer', {
        timeoutMs: options.timeoutMs,
        ...(options.requestId ? { awsRequestId: options.requestId } : {}),
      }),
    );
  } catch (error) {
    throw GatewayRefusal.of(isUnauthorized(error) ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE');
  }
  if (!policyAllows(result, options.methodArn)) throw GatewayRefusal.of('ACCESS_DENIED');
  return result;
};
