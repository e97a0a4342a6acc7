import type { AllowedOrigins } from '#shared/allowed-origins';
import { originOf } from '#shared/http/cors';
import { corsHeaders } from '#shared/http/gateway-behaviour';
import type { ProxyHandler } from '#shared/lambda';

/** A handler with the CORS headers of `allowed` on every answer: around the whole stack, so none leaves without. */
export const withCors =
  (allowed: AllowedOrigins, granted: Readonly<Record<string, string>>, handler: ProxyHandler): ProxyHandler =>
  async (event, context) => {
    // Read before the middleware stack, which rewrites the event's headers.
    const headers = corsHeaders(allowed, originOf(event), granted);
    const result = await handler(event, context);
    return { ...result, headers: { ...result.headers, ...headers } };
  };
