import * as z from 'zod/mini';

const INTEGER_PARAMS = new WeakSet<z.core.$ZodType>();

/**
 * A query or path value that must be written as a decimal integer, then checked by `schema`
 * (range, and so on). Query strings and paths carry text: `?limit=1e1` or `?limit= 5` are not
 * integers, whatever `Number()` would make of them.
 */
export const integerParam = <T extends z.ZodMiniType<number, number>>(schema: T) => {
  const param = z.pipe(
    z.pipe(z.string().check(z.regex(/^-?\d+$/, { error: 'must be an integer' })), z.transform(Number)),
    schema,
  );
  INTEGER_PARAMS.add(param);
  return param;
};

/** Whether a schema is an `integerParam`: the document shows such a parameter as the integer it decodes to. */
export const isIntegerParam = (
  schema: z.core.$ZodType,
): schema is z.ZodMiniPipe<z.ZodMiniType, z.ZodMiniType> => INTEGER_PARAMS.has(schema);
