/** `Content-Type` as RFC 9110 (§8.3.1, §5.6) defines it: `type/subtype *( OWS ";" OWS name=value )`. */

export interface MediaType {
  readonly essence: string;
  /** Parameter names in lower case; values as sent, unquoted. */
  readonly parameters: ReadonlyMap<string, string>;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"((?:[\\t !#-\\[\\]-~\\x80-\\xff]|\\\\[\\t !-~\\x80-\\xff])*)"';
const ESSENCE = new RegExp(`^(${TOKEN})/(${TOKEN})`, 'y');
const PARAMETER = new RegExp(`[ \\t]*;[ \\t]*(?:(${TOKEN})=(?:(${TOKEN})|${QUOTED}))?`, 'y');
const TRAILING_SPACE = /[ \t]*$/y;

/** The media type a `Content-Type` value names, or `undefined` when it is not well formed. */
export const parseMediaType = (value: string): MediaType | undefined => {
  ESSENCE.lastIndex = 0;
  const essence = ESSENCE.exec(value);
  if (!essence) return undefined;
  const parameters = new Map<string, string>();
  let position = ESSENCE.lastIndex;
  while (position < value.length) {
    PARAMETER.lastIndex = position;
    const parameter = PARAMETER.exec(value);
    // A match always consumes its `;`: the loop moves on or stops.
    if (!parameter) break;
    const [, name, token, quoted] = parameter;
    if (name !== undefined) {
      const key = name.toLowerCase();
      if (parameters.has(key)) return undefined;
      parameters.set(key, token ?? quoted?.replace(/\\(.)/g, '$1') ?? '');
    }
    position = PARAMETER.lastIndex;
  }
  TRAILING_SPACE.lastIndex = position;
  TRAILING_SPACE.exec(value);
  if (TRAILING_SPACE.lastIndex !== value.length) return undefined;
  return { essence: `${essence[1]}/${essence[2]}`.toLowerCase(), parameters };
};

/** One of `essences`, with no parameter but `charset=utf-8` (JSON is UTF-8, RFC 8259). */
export const isJsonUtf8 = (
  value: string | undefined,
  essences: readonly string[] = ['application/json'],
): boolean => {
  const type = value === undefined ? undefined : parseMediaType(value);
  if (type === undefined || !essences.includes(type.essence)) return false;
  return [...type.parameters].every(
    ([name, parameter]) => name === 'charset' && parameter.toLowerCase() === 'utf-8',
  );
};
