import { isInteger, isSafeNumber, parse } from 'lossless-json';
import type { ErrorDetail } from '#shared/http/error-body';
import { validationFailed } from '#shared/http/middleware/validate-request';

/**
 * Numbers taken exactly as sent. `JSON.parse` reads `1.0000000000000001` as 1 and
 * `9007199254740990.9` as 9007199254740991: stored, the client's value would have become another.
 * The body's text is read once more with a lossless parser (`lossless-json`, which hands each
 * number over as its text), the same on Lambda's Node 24 and the local server's Node 20, and a
 * number the service cannot hold exactly is refused, naming its field: an integer the double
 * differs from (9007199254740993; 2^53 itself is held, and refused by range), or a number with a
 * fraction or exponent whose digits do not survive the round trip through a double
 * (`isSafeNumber`).
 */

/** Whether a double holds the number `text` as written. */
const isExact = (text: string): boolean => {
  if (!isInteger(text)) return isSafeNumber(text);
  const read = Number(text);
  return Number.isFinite(read) && BigInt(read) === BigInt(text);
};

/** A number whose text a double cannot hold exactly. */
class Inexact {
  constructor(readonly text: string) {}
}

/** Each field of `value` holding an Inexact number, as `field.key…`. */
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

/**
 * Refuses (400 VALIDATION_FAILED, each field at fault named `body.…`) a JSON body holding a number
 * the service cannot hold exactly. Text that is not JSON is left to the JSON parser to refuse.
 */
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
  const details = inexactFields(value, 'body');
  if (details.length > 0) throw validationFailed(details);
};
