import { isInteger, isSafeNumber, parse } from 'lossless-json';
import type { ErrorDetail } from '#shared/http/error-body';
import { validationFailed } from '#shared/http/middleware/validate-request';

/**
 * A number a double cannot hold exactly (`1.0000000000000001`) is refused, judged by its text: a reviver
 * gets it on Node 22+ (Lambda), `lossless-json` rereads it on Node 20 (tools, tests).
 */

const isExact = (text: string): boolean => {
  if (!isInteger(text)) return isSafeNumber(text);
  const read = Number(text);
  return Number.isFinite(read) && BigInt(read) === BigInt(text);
};

class Inexact {
  constructor(readonly text: string) {}
}

const inexactFields = (value: unknown, field: string): ErrorDetail[] => {
  if (value instanceof Inexact)
    return [
      {
        field,
        message: `must be a number the service can hold exactly (it would be read as ${Number(value.text)})`,
      },
    ];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => inexactFields(item, `${field}.${key}`));
};

/** Whether `JSON.parse` hands a reviver each number's source text (Node 22 and later). */
export const parseGivesNumberSource = (): boolean => {
  let given = false;
  JSON.parse('0', (_key, value, context?: { source?: unknown }) => {
    given = typeof context?.source === 'string';
    return value;
  });
  return given;
};

/** A `JSON.parse` reviver, where it gets each number's source text: an inexact number becomes Inexact. */
export const exactNumbersReviver = (_key: string, value: unknown, context?: { source?: string }): unknown =>
  typeof value === 'number' && context?.source !== undefined && !isExact(context.source)
    ? new Inexact(context.source)
    : value;

/** Refuses (400, each field named `body.…`) a body parsed with `exactNumbersReviver` holding an Inexact number. */
export const refuseInexactNumbers = (value: unknown): void => {
  const details = inexactFields(value, 'body');
  if (details.length > 0) throw validationFailed(details);
};

/** Refuses (400, each field named `body.…`) JSON holding an inexact number, read losslessly; not JSON: left to the parser. */
export const checkExactNumbers = (text: string): void => {
  let value: unknown;
  try {
    value = parse(text, null, {
      parseNumber: (number) => (isExact(number) ? 0 : new Inexact(number)),
      // As JSON.parse reads them: the last of repeated keys.
      onDuplicateKey: ({ newValue }) => newValue,
    });
  } catch {
    return;
  }
  refuseInexactNumbers(value);
};
