import type { ObservedExchange } from './api-client';

/**
 * What every answer carries, whoever gives it (a function, the gateway itself): never sniffed
 * as another type, never cached, and on a 429 or 503 when to retry.
 */
export const responseHeaderProblems = (exchange: Pick<ObservedExchange, 'status' | 'headers'>): string[] => {
  const problems: string[] = [];
  const expect = (name: string, value: string) => {
    const actual = exchange.headers.get(name);
    if (actual !== value)
      problems.push(`${name} is ${actual === null ? 'missing' : `"${actual}"`}, not "${value}"`);
  };
  expect('X-Content-Type-Options', 'nosniff');
  expect('Cache-Control', 'no-store');
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
