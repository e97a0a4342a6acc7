import { isInteger, isSafeNumber, parse } from 'lossless-json';
import type { ErrorDetail } from '#shared/http/error-body';
import { MAX_BODY_DEPTH } from '#shared/http/limits';
import { validationFailed } from '#shared/http/middleware/validate-request';

/**
 * Numbers taken exactly as sent. `JSON.parse` reads `1.0000000000000001` as 1 and
 * `9007199254740990.9` as 9007199254740991: stored, the client's value would have become another.
 * Each number is judged by its text: on Node 22 and later (Lambda's Node 24) `JSON.parse` hands a
 * reviver each number's source text, so the one parse of the body does it
 * (`exactNumbersReviver`); Node 20 (where the tools and tests run the functions from source) does
 * not, so there the text is read once more with a lossless parser (`lossless-json`,
 * `checkExactNumbers`). Either way a number the service cannot hold exactly is refused, naming
 * its field: an integer the double differs from (9007199254740993; 2^53 itself is held, and
 * refused by range), or a number with a fraction or exponent whose digits do not survive the
 * round trip through a double (`isSafeNumber`).
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

/** Whether `JSON.parse` hands a reviver each number's source text (Node 22 and later). */
export const parseGivesNumberSource = (): boolean => {
  let given = false;
  JSON.parse('0', (_key, value, context?: { source?: unknown }) => {
    given = typeof context?.source === 'string';
    return value;
  });
  return given;
};

/** A `JSON.parse` reviver, where it gets each number's source text: a number a double cannot hold exactly becomes Inexact. */
export const exactNumbersReviver = (_key: string, value: unknown, context?: { source?: string }): unknown =>
  typeof value === 'number' && context?.source !== undefined && !isExact(context.source)
    ? new Inexact(context.source)
    : value;

/** Refuses (400 VALIDATION_FAILED, each field at fault named `body.…`) a body parsed with `exactNumbersReviver` holding an Inexact number. */
export const refuseInexactNumbers = (value: unknown): void => {
  const details = inexactFields(value, 'body');
  if (details.length > 0) throw validationFailed(details);
};

/**
 * How deep `text` nests objects and arrays, read in one pass without recursion (brackets inside
 * strings do not count), so that no depth a client sends can overflow the stack here.
 */
const nestingDepth = (text: string): number => {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{' || character === '[') deepest = Math.max(deepest, ++depth);
    else if (character === '}' || character === ']') depth -= 1;
  }
  return deepest;
};

/** Whether `text` is JSON, as the body parser will judge it (V8's JSON.parse does not recurse). */
const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/**
 * Refuses (400 VALIDATION_FAILED, field `body`) a JSON body nested deeper than MAX_BODY_DEPTH,
 * before anything parses or walks it, whichever way its numbers are then read. Text that is not
 * JSON is left to the JSON parser to refuse (INVALID_JSON).
 */
export const refuseDeepNesting = (text: string): void => {
  if (nestingDepth(text) <= MAX_BODY_DEPTH || !isJson(text)) return;
  throw validationFailed([
    { field: 'body', message: `must not be nested more than ${MAX_BODY_DEPTH} objects or arrays deep` },
  ]);
};

/**
 * Refuses (400 VALIDATION_FAILED, each field at fault named `body.…`) a JSON body holding a number
 * the service cannot hold exactly, read losslessly where `JSON.parse` gives no source text. Text
 * that is not JSON is left to the JSON parser to refuse.
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
  refuseInexactNumbers(value);
};
