import type { AllowedOrigins } from '#shared/allowed-origins';
import { originOf } from '#shared/http/cors';
import { corsHeaders } from '#shared/http/gateway-behaviour';
import type { ProxyHandler } from '#shared/lambda';

/**
 * A function's handler with the CORS headers of `allowed` on every answer it gives, the early
 * ones included: applied around the whole middleware stack, so no answer can leave without them.
 * An allowed origin is granted `granted` (the headers its answers may carry), as
 * `gateway-behaviour.ts` grants it on API Gateway's own answers.
 */
export const withCors =
  (allowed: AllowedOrigins, granted: Readonly<Record<string, string>>, handler: ProxyHandler): ProxyHandler =>
  async (event, context) => {
    // Read before the middleware stack, which rewrites the event's headers.
    const headers = corsHeaders(allowed, originOf(event), granted);
    const result = await handler(event, context);
    return { ...result, headers: { ...result.headers, ...headers } };
  };
