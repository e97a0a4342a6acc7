import assert, { AssertionError } from 'node:assert/strict';
import type { ObservedExchange } from './api-client';

/** Assertions beyond `node:assert/strict`: the suite runs outside any test runner (`npm run smoke`). */

const fail = (message: string, actual: unknown, expected: unknown, operator: string): never => {
  throw new AssertionError({ message, actual, expected, operator });
};

/** `text` holds `part` (a missing header or field is `null` or `undefined`, and fails). */
export const assertContains = (text: string | null | undefined, part: string): void => {
  if (typeof text !== 'string' || !text.includes(part)) {
    fail(`Expected ${JSON.stringify(text)} to contain ${JSON.stringify(part)}`, text, part, 'contains');
  }
};

export const assertAtLeast = (actual: number, least: number): void => {
  if (!(actual >= least)) fail(`Expected ${actual} to be at least ${least}`, actual, least, '>=');
};

export const detailsOf = (response: ObservedExchange): { field: string; message: string }[] =>
  (response.json as { details?: { field: string; message: string }[] } | undefined)?.details ?? [];

/** Every failure is the Error object, as JSON, with `status` equal to the HTTP status, and no stack trace. */
export const assertError = (response: ObservedExchange, status: number, code: string): void => {
  assert.equal(response.status, status);
  assert.equal(response.headers.get('content-type'), 'application/json');
  const body = (response.json ?? {}) as { code?: unknown; status?: unknown; message?: unknown };
  assert.deepEqual({ code: body.code, status: body.status }, { code, status });
  assert.equal(typeof body.message, 'string', `The Error object has no message: ${response.text}`);
  assert.doesNotMatch(response.text, /\bat .+:\d+:\d+/);
};
