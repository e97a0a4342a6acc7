import type { AllowedOrigins } from '#shared/allowed-origins';
import { originOf } from '#shared/http/cors';
import { corsHeaders } from '#shared/http/gateway-behaviour';
import type { ProxyHandler } from '#shared/lambda';

/**
 * A function's handler with the CORS headers of `allowed` on every answer it gives, the early
 * ones included: applied around the whole middleware stack, so no answer can leave without them. The headers are those of `gateway-behaviour.ts`, as on API Gateway's
 * own answers.
 */
export const withCors =
  (allowed: AllowedOrigins, handler: ProxyHandler): ProxyHandler =>
  async (event, context) => {
    // Read before the middleware stack, which rewrites the event's headers.
    const headers = corsHeaders(allowed, originOf(event));
    const result = await handler(event, context);
    return { ...result, headers: { ...result.headers, ...headers } };
  };
