import type { APIGatewayProxyEvent } from 'aws-lambda';
import { RATE_LIMIT_POLICY_HEADER } from '#shared/http/rate-limit-policy';
import { REQUEST_ID_HEADER, requestIdOf } from '#shared/http/request-id';
import type { ProxyHandler } from '#shared/lambda';

/** The caller's `RateLimit-Policy`, from the authorizer's context. */
const rateLimitPolicyOf = (event: APIGatewayProxyEvent): string | undefined => {
  const value = (event.requestContext?.authorizer as Record<string, unknown> | null | undefined)
    ?.rateLimitPolicy;
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** `Request-Id` and `RateLimit-Policy` around the whole stack, so errors and replays carry them too. */
export const withAnswerHeaders =
  (handler: ProxyHandler): ProxyHandler =>
  async (event, context) => {
    const requestId = requestIdOf(event);
    const policy = rateLimitPolicyOf(event);
    const result = await handler(event, context);
    return {
      ...result,
      headers: {
        ...result.headers,
        ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}),
        ...(policy ? { [RATE_LIMIT_POLICY_HEADER]: policy } : {}),
      },
    };
  };
