import type { APIGatewayProxyEvent } from 'aws-lambda';
import { RATE_LIMIT_POLICY_HEADER } from '#shared/http/rate-limit-policy';
import { REQUEST_ID_HEADER, requestIdOf } from '#shared/http/request-id';
import type { ProxyHandler } from '#shared/lambda';

/** The caller's `RateLimit-Policy`, as the authorizer put it in the request's context; none without one. */
const rateLimitPolicyOf = (event: APIGatewayProxyEvent): string | undefined => {
  const value = (event.requestContext?.authorizer as Record<string, unknown> | null | undefined)
    ?.rateLimitPolicy;
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The headers of every answer that come from the request itself: `Request-Id` (the id API Gateway
 * generated for the request, the Error body's `requestId`) and the caller's `RateLimit-Policy` (from the
 * authorizer's context). Applied around the whole middleware stack, like `withCors`, so that every
 * answer carries them: errors, early answers and idempotent replays (whose stored headers are the
 * first request's) included.
 */
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
