import * as v from 'valibot';
import { InvalidStoredItemError } from '#shared/domain/errors';

/** A stored item checked with its schema; its InvalidStoredItemError names no value (it may be secret). */
export const parseStoredItem = <S extends v.GenericSchema>(
  schema: S,
  item: Record<string, unknown>,
  kind: string,
  key: unknown,
): v.InferOutput<S> => {
  const result = v.safeParse(schema, item);
  if (result.success) return result.output;
  const problems = result.issues.map(
    (issue) => `${issue.path?.map((step) => String(step.key)).join('.') || '(item)'}: ${issue.message}`,
  );
  throw new InvalidStoredItemError(kind, describeKey(key), problems);
};

/** A key as a log may show it: a number, or a short string. */
const describeKey = (key: unknown): string =>
  typeof key === 'number' || typeof key === 'string' ? String(key).slice(0, 100) : `(${typeof key})`;
