import { REQUEST_ID_HEADER } from '#shared/http/request-id';
import type { ObservedExchange } from './api-client';

/** The `requestId` of an Error body, if the answer has one. */
const bodyRequestId = (json: unknown): unknown =>
  typeof json === 'object' && json !== null && 'requestId' in json ? json.requestId : undefined;

/**
 * What every answer carries, whoever gives it (a function, the gateway itself): never sniffed
 * as another type, never cached, a `Request-Id` (the Error body's `requestId` when it has one),
 * and on a 429 or 503 when to retry.
 */
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
  const requestId = exchange.headers.get(REQUEST_ID_HEADER);
  if (!requestId) problems.push(`${REQUEST_ID_HEADER} is missing`);
  const inBody = bodyRequestId(exchange.json);
  if (inBody !== undefined && inBody !== requestId)
    problems.push(
      `the body's requestId ${JSON.stringify(inBody)} is not the ${REQUEST_ID_HEADER} "${requestId}"`,
    );
  if (exchange.status === 429 || exchange.status === 503) {
    if (!/^\d+$/.test(exchange.headers.get('Retry-After') ?? '')) problems.push('Retry-After is missing');
  }
  return problems;
};

export class MissingResponseHeader extends Error {
  override readonly name = 'MissingResponseHeader';
}

/** Throws, naming each problem, when a response lacks a header every response must carry. */
export const assertResponseHeaders = (exchange: ObservedExchange): void => {
  const problems = responseHeaderProblems(exchange);
  if (problems.length > 0) {
    throw new MissingResponseHeader(
      `${exchange.method} ${exchange.path} answered ${exchange.status}: ${problems.join('; ')}`,
    );
  }
};
