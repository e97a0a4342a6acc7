import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerValues } from '#shared/http/headers';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '#shared/http/idempotency-headers';
import type { ProxyHandler } from '#shared/lambda';

/**
 * Cross-origin requests from browsers (CORS, WHATWG Fetch standard): which web origins may read
 * the API's answers, and the headers that say so. The rules, wherever the answer comes from
 * (a function, API Gateway's preflight and 405 mocks, the local server):
 *
 * - an origin on the list gets `Access-Control-Allow-Origin: <its origin>` and
 *   `Access-Control-Expose-Headers` on every answer, errors included;
 * - any other origin, or a request without `Origin`, gets no CORS header at all;
 * - `Vary: Origin` is sent whenever origins are configured, since the answer then depends on it;
 * - a preflight (`OPTIONS`) is answered without a key, with the methods of the resource, the
 *   request headers clients may send and how long a browser may cache the answer.
 *
 * API Gateway's own error answers (gateway responses) cannot look at the request's origin; what
 * they can carry is `gatewayResponseCorsHeaders`.
 */

/** Allowed origins: exact origins (`https://app.example.com`), or `*` alone for any origin. */
export type AllowedOrigins = readonly string[];

/** Any origin: what `npm start` allows unless told otherwise. Never a stage's setting. */
export const ANY_ORIGIN = '*';

/** Response headers a script on an allowed origin may read, beyond the always-readable ones. */
export const CORS_EXPOSED_HEADERS = [
  'Link',
  'Location',
  'Deprecation',
  'Sunset',
  'Retry-After',
  IDEMPOTENT_REPLAYED_HEADER,
] as const;

/** Request headers a script on an allowed origin may send. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', IDEMPOTENCY_KEY_HEADER] as const;

/** How long a browser may reuse a preflight answer: two hours, the longest Chromium honours. */
export const CORS_MAX_AGE_SECONDS = 7_200;

export class CorsConfigError extends Error {
  override readonly name = 'CorsConfigError';
}

/**
 * An origin as browsers send it: scheme, host and port only, in lower case, without the
 * default port or a trailing slash. Anything else could never match a request.
 */
export const checkOrigin = (origin: string): string => {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new CorsConfigError(`"${origin}" is not an origin such as https://app.example.com`);
  }
  if (!['http:', 'https:'].includes(url.protocol)) {
    // `localhost:5173` parses as a URL of scheme "localhost:": the scheme was left out.
    const meant = /^[a-z0-9.-]+:\d+$/i.test(origin) ? ` (did you mean http://${origin.toLowerCase()}?)` : '';
    throw new CorsConfigError(
      `"${origin}" is not an origin: an origin starts with http:// or https://, as in http://localhost:5173${meant}`,
    );
  }
  if (url.origin !== origin) {
    throw new CorsConfigError(
      `"${origin}" is not an origin as browsers send it: scheme, host and port only, lower case, no path (browsers would send ${url.origin})`,
    );
  }
  return origin;
};

/** A comma-separated list of origins, or `*`; blanks around commas are ignored. */
export const parseAllowedOrigins = (text: string): AllowedOrigins => {
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  if (origins.includes(ANY_ORIGIN)) {
    if (origins.length > 1) throw new CorsConfigError('"*" allows any origin: list no other with it');
    return [ANY_ORIGIN];
  }
  return [...new Set(origins.map(checkOrigin))];
};

/** Whether an answer to a request from `origin` may be read by its page. */
export const isAllowedOrigin = (allowed: AllowedOrigins, origin: string | undefined): origin is string =>
  origin !== undefined && origin !== '' && (allowed.includes(ANY_ORIGIN) || allowed.includes(origin));

/** `Vary: Origin` when the answer depends on the origin, i.e. whenever any origin is allowed. */
const vary = (allowed: AllowedOrigins): Readonly<Record<string, string>> =>
  allowed.length > 0 ? { Vary: 'Origin' } : {};

/** The CORS headers of an answer to a request from `origin` (the request's `Origin`, if any). */
export const corsHeaders = (
  allowed: AllowedOrigins,
  origin: string | undefined,
): Readonly<Record<string, string>> => ({
  ...vary(allowed),
  ...(isAllowedOrigin(allowed, origin)
    ? {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
      }
    : {}),
});

/** The CORS headers of a preflight answer for a resource that accepts `methods`. */
export const preflightHeaders = (
  allowed: AllowedOrigins,
  origin: string | undefined,
  methods: readonly string[],
): Readonly<Record<string, string>> => ({
  ...vary(allowed),
  ...(isAllowedOrigin(allowed, origin)
    ? {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': methods.join(', '),
        'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
        'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
      }
    : {}),
});

/** A header value of a gateway response: fixed, or copied from a request header. */
export type GatewayHeaderValue = string | { readonly requestHeader: string };

/**
 * The CORS headers API Gateway's own answers (401, 404, 429, 5xx…) can carry. A gateway response
 * has no condition: each header is a fixed value or a copy of a request header. So:
 *
 * - any origin (`*`): the request's `Origin` copied back, which is "any origin";
 * - exactly one origin: that origin, fixed. Its page can read the answer; a page of any other
 *   origin cannot, since the browser compares the header with its own origin;
 * - several origins (or none): no CORS header. Copying `Origin` would let every origin read
 *   them, and a fixed value can name only one: a browser on those origins cannot read API
 *   Gateway's own errors (it sees a network error); docs/deploy.md says so.
 */
export const gatewayResponseCorsHeaders = (
  allowed: AllowedOrigins,
): Readonly<Record<string, GatewayHeaderValue>> => {
  const exposed = { 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', ') };
  if (allowed.includes(ANY_ORIGIN)) {
    return { 'Access-Control-Allow-Origin': { requestHeader: 'Origin' }, ...exposed, Vary: 'Origin' };
  }
  const [only, ...more] = allowed;
  return only !== undefined && more.length === 0 ? { 'Access-Control-Allow-Origin': only, ...exposed } : {};
};

/** The one `Origin` among a request's values; none when it is missing or repeated (no browser repeats it). */
export const singleOrigin = (values: readonly string[]): string | undefined =>
  values.length === 1 ? values[0] : undefined;

/** The request's one `Origin` (singleOrigin). */
export const originOf = (event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>) =>
  singleOrigin(headerValues(event, 'origin'));

/**
 * A function's handler with the CORS headers of `allowed` on every answer it gives, the
 * replayed and early ones included: applied around the whole middleware stack, so no answer
 * can leave without them.
 */
export const withCors =
  (allowed: AllowedOrigins, handler: ProxyHandler): ProxyHandler =>
  async (event, context) => {
    // Read before the middleware stack, which rewrites the event's headers.
    const headers = corsHeaders(allowed, originOf(event));
    const result = await handler(event, context);
    return { ...result, headers: { ...result.headers, ...headers } };
  };
