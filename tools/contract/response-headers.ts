import { API_GATEWAY_ID_HEADER, REQUEST_ID_HEADER } from '#shared/http/request-id';
import type { ObservedExchange } from './api-client';

/** The `requestId` an Error body names, if any. */
export const bodyRequestId = (json: unknown): unknown =>
  typeof json === 'object' && json !== null && 'requestId' in json ? json.requestId : undefined;

/** `Request-Id`, else `x-amz-apigw-id` (gateway responses cannot carry `Request-Id`: docs/aws-ledger.md). */
export const requestIdOfAnswer = (headers: Headers): string | null =>
  headers.get(REQUEST_ID_HEADER) ?? headers.get(API_GATEWAY_ID_HEADER);

/** What every answer carries, whoever gives it: nosniff, no-store, its request id, and Retry-After on a 429 or 503. */
export const responseHeaderProblems = (
  exchange: Pick<ObservedExchange, 'status' | 'headers'> & Partial<Pick<ObservedExchange, 'json'>>,
): string[] => {
  const problems: string[] = [];
  const expect = (name: string, value: string) => {
    const actual = exchange.headers.get(name);
    if (actual !== value)
      problems.push(`${name} is ${actual === null ? 'missing' : `"${actual}"`}, not "${value}"`);
  };
  expect('X-Content-Type-Options', 'nosniff');
  expect('Cache-Control', 'no-store');
  const requestId = requestIdOfAnswer(exchange.headers);
  if (!requestId) problems.push(`${REQUEST_ID_HEADER} and ${API_GATEWAY_ID_HEADER} are both missing`);
  const gatewayId = exchange.headers.get(API_GATEWAY_ID_HEADER);
  if (gatewayId && requestId !== gatewayId)
    problems.push(`${REQUEST_ID_HEADER} "${requestId}" is not ${API_GATEWAY_ID_HEADER} "${gatewayId}"`);
  const inBody = bodyRequestId(exchange.json);
  if (inBody !== undefined && inBody !== requestId)
    problems.push(
      `the body's requestId ${JSON.stringify(inBody)} is not the request id "${requestId}" of its headers`,
    );
  if (exchange.status === 429 || exchange.status === 503) {
    if (!/^\d+$/.test(exchange.headers.get('Retry-After') ?? '')) problems.push('Retry-After is missing');
  }
  return problems;
};

export class MissingResponseHeader extends Error {
  override readonly name = 'MissingResponseHeader';
}

export const assertResponseHeaders = (exchange: ObservedExchange): void => {
  const problems = responseHeaderProblems(exchange);
  if (problems.length > 0) {
    throw new MissingResponseHeader(
      `${exchange.method} ${exchange.path} answered ${exchange.status}: ${problems.join('; ')}`,
    );
  }
};
