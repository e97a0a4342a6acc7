import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type AllowedOrigins, ANY_ORIGIN } from '#shared/allowed-origins';
import { headerValues } from '#shared/http/headers';

/**
 * Cross-origin requests from browsers (CORS, WHATWG Fetch standard): the origin a request
 * carries, and whether the stage's allowed origins (shared/allowed-origins.ts) include it. What an
 * allowed origin gets, on each kind of answer, is in `gateway-behaviour.ts`.
 */

/** Whether an answer to a request from `origin` may be read by its page. */
export const isAllowedOrigin = (allowed: AllowedOrigins, origin: string | undefined): origin is string =>
  origin !== undefined && origin !== '' && (allowed.includes(ANY_ORIGIN) || allowed.includes(origin));

/** The one `Origin` among a request's values; none when it is missing or repeated (no browser repeats it). */
export const singleOrigin = (values: readonly string[]): string | undefined =>
  values.length === 1 ? values[0] : undefined;

/** The request's one `Origin` (singleOrigin). */
export const originOf = (event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>) =>
  singleOrigin(headerValues(event, 'origin'));
