import { authorizerValue } from '#shared/http/caller';
import { RATE_LIMIT_POLICY_HEADER } from '#shared/http/rate-limit-policy';
import { REQUEST_ID_HEADER, requestIdOf } from '#shared/http/request-id';
import type { ProxyHandler } from '#shared/lambda';

/** `Request-Id` and `RateLimit-Policy` around the whole stack, so errors and replays carry them too. */
export const withAnswerHeaders =
  (handler: ProxyHandler): ProxyHandler =>
  async (event, context) => {
    const requestId = requestIdOf(event);
    // The caller's, from the authorizer's context.
    const policy = authorizerValue(event, 'rateLimitPolicy');
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
