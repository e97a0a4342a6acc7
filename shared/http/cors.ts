import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type AllowedOrigins, ANY_ORIGIN } from '#shared/allowed-origins';
import { headerValues } from '#shared/http/headers';

/** Whether an answer to a request from `origin` may be read by its page. */
export const isAllowedOrigin = (allowed: AllowedOrigins, origin: string | undefined): origin is string =>
  origin !== undefined && origin !== '' && (allowed.includes(ANY_ORIGIN) || allowed.includes(origin));

/**
 * The one origin a request names; none for a list, which RFC 6454 (7.1) allows but browsers never
 * send (Fetch standard), or for a repeated `Origin` a proxy joined with a comma.
 */
export const singleOrigin = (values: readonly string[]): string | undefined => {
  const [origin, ...more] = values;
  return more.length === 0 && origin !== undefined && !/[\s,]/.test(origin) ? origin : undefined;
};

export const originOf = (event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>) =>
  singleOrigin(headerValues(event, 'origin'));
