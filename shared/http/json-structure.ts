import { MAX_BODY_DEPTH } from '#shared/http/limits';
import { validationFailed } from '#shared/http/middleware/validate-request';

/**
 * What a JSON body's text holds beside its values, read without recursion so that no depth can overflow the
 * stack: how deeply it nests objects and arrays, and whether an object repeats a member name. `JSON.parse`
 * keeps the last of repeated names, and lossless-json reports a repeat only when its value differs; RFC 8259
 * §4 says names SHOULD be unique, and I-JSON (RFC 7493 §2.3) that they MUST NOT repeat.
 */
export interface JsonShape {
  /** Objects and arrays nested, the body itself counted. */
  readonly depth: number;
  /** Members (name and value) of every object; each is one colon outside the strings. */
  readonly members: number;
}

/** The shape of `text`, meant for JSON: of other text it says little, and the parser refuses that text. */
export const jsonShape = (text: string): JsonShape => {
  let depth = 0;
  let deepest = 0;
  let members = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === ':') members += 1;
    else if (character === '{' || character === '[') deepest = Math.max(deepest, ++depth);
    else if (character === '}' || character === ']') depth -= 1;
  }
  return { depth: deepest, members };
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

/** Refuses (400, field `body`) JSON nested deeper than MAX_BODY_DEPTH before anything walks it; not JSON: left to the parser. */
export const refuseDeepNesting = (text: string, { depth }: JsonShape): void => {
  if (depth <= MAX_BODY_DEPTH || !isJson(text)) return;
  throw validationFailed([
    { field: 'body', message: `must not be nested more than ${MAX_BODY_DEPTH} objects or arrays deep` },
  ]);
};

/** The member names of every object of a parsed value (nested at most MAX_BODY_DEPTH deep): one per name. */
const namesIn = (value: unknown): number => {
  if (typeof value !== 'object' || value === null) return 0;
  const items = Object.values(value);
  return (
    (Array.isArray(value) ? 0 : items.length) + items.reduce<number>((sum, item) => sum + namesIn(item), 0)
  );
};

/** What each escape of RFC 8259 §7 but `\u` stands for. */
const ESCAPED: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** A name as its text between quotes says it, escapes decoded (not by `JSON.parse`: the body is parsed once). */
const nameOf = (text: string): string =>
  text.replace(/\\(?:u([0-9A-Fa-f]{4})|(.))/g, (_escape, code: string | undefined, character: string) =>
    code === undefined ? (ESCAPED[character] ?? character) : String.fromCharCode(Number.parseInt(code, 16)),
  );

/** What follows a member name: white space (RFC 8259 §2), then the name separator. */
const NAME_END = /[ \t\n\r]*:/y;

interface Container {
  /** The member names seen so far; none for an array. */
  readonly names: Set<string> | undefined;
  /** Where the next value goes: the last member name, or the array's item index. */
  step: string | number;
}

/** Each member of JSON `text` whose name its object already has, as the field `body.…` (array items by index). */
export const repeatedMembers = (text: string): string[] => {
  const open: Container[] = [];
  const repeated: string[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    const inside = open[open.length - 1];
    if (character === '"') {
      const start = index;
      for (index += 1; index < text.length && text[index] !== '"'; index += 1) {
        if (text[index] === '\\') index += 1;
      }
      // In an object, a string followed by a colon is a member name.
      NAME_END.lastIndex = index + 1;
      if (inside?.names === undefined || !NAME_END.test(text)) continue;
      const name = nameOf(text.slice(start + 1, index));
      if (inside.names.has(name)) {
        repeated.push(['body', ...open.slice(0, -1).map((container) => container.step), name].join('.'));
      }
      inside.names.add(name);
      inside.step = name;
    } else if (character === '{' || character === '[') {
      open.push({ names: character === '{' ? new Set() : undefined, step: 0 });
    } else if (character === '}' || character === ']') {
      open.pop();
    } else if (character === ',' && inside !== undefined && inside.names === undefined) {
      inside.step = Number(inside.step) + 1;
    }
  }
  return repeated;
};

/**
 * Refuses (400, each member named) JSON `text`, parsed as `value`, in which an object repeats a member name, at
 * any depth. Each repeat leaves the parsed value one name short of the text's members; only then is the text
 * read again for the names.
 */
export const refuseRepeatedMembers = (text: string, { members }: JsonShape, value: unknown): void => {
  if (namesIn(value) === members) return;
  const repeated = [...new Set(repeatedMembers(text))];
  if (repeated.length === 0) return;
  throw validationFailed(
    repeated.map((field) => ({
      field,
      message: 'is repeated: a member name may appear once in its object (I-JSON, RFC 7493)',
    })),
  );
};
