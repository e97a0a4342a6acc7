import { type AllowedOrigins, ANY_ORIGIN, type GatewayHeaderValue } from '#shared/http/cors';

/**
 * CORS for API Gateway's mock integrations (the preflight and the 405), as a mapping template.
 * An integration response can set a header only for some requests through
 * `$context.responseOverride` in its template (VTL), which is what "allowed origins only" needs:
 * the template reads the request's `Origin` and, when it is allowed, sets the headers with the
 * origin itself as `Access-Control-Allow-Origin`. It writes nothing to the body.
 */

/** The VTL condition "the request's `$origin` is allowed". */
const originAllowed = (allowed: AllowedOrigins): string =>
  allowed.includes(ANY_ORIGIN)
    ? '"$!origin" != ""'
    : allowed.map((origin) => `$origin == '${origin}'`).join(' || ');

/**
 * A template (one line, no output) that sets `headers` and `Access-Control-Allow-Origin` for an
 * allowed origin, and nothing for any other; empty when no origin is allowed.
 */
export const corsOverrideTemplate = (
  allowed: AllowedOrigins,
  headers: Readonly<Record<string, string>>,
): string => {
  if (allowed.length === 0) return '';
  const overrides = Object.entries(headers)
    .map(([name, value]) => `#set($context.responseOverride.header.${name} = '${value}')`)
    .join('');
  return [
    // API Gateway keeps the header's case as sent; browsers send `Origin`.
    "#set($origin = $input.params().header.get('Origin'))",
    `#if("$!origin" == "")#set($origin = $input.params().header.get('origin'))#end`,
    `#if(${originAllowed(allowed)})`,
    '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
    overrides,
    '#end',
  ].join('');
};

/** A gateway response header value as API Gateway writes it: a quoted literal or a request header. */
export const gatewayResponseValue = (value: GatewayHeaderValue): string =>
  typeof value === 'string' ? `'${value}'` : `method.request.header.${value.requestHeader}`;
