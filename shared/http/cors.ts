import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerValues } from '#shared/http/headers';

/**
 * Cross-origin requests from browsers (CORS, WHATWG Fetch standard): which web origins a stage
 * allows, as configuration reads them and as requests carry them. What an allowed origin gets,
 * on each kind of answer, is in `gateway-behaviour.ts`.
 */

/** Allowed origins: exact origins (`https://app.example.com`), or `*` alone for any origin. */
export type AllowedOrigins = readonly string[];

/** Any origin: what `npm start` allows unless told otherwise. Never a stage's setting. */
export const ANY_ORIGIN = '*';

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
  if (!['http:', 'https:'].includes(url.protocol) || url.origin !== origin) {
    throw new CorsConfigError(
      `"${origin}" is not an origin as browsers send it: scheme, host and port only, lower case, no path (${url.origin})`,
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

/** The one `Origin` among a request's values; none when it is missing or repeated (no browser repeats it). */
export const singleOrigin = (values: readonly string[]): string | undefined =>
  values.length === 1 ? values[0] : undefined;

/** The request's one `Origin` (singleOrigin). */
export const originOf = (event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>) =>
  singleOrigin(headerValues(event, 'origin'));
