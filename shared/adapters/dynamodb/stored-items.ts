import * as v from 'valibot';
import { InvalidStoredItemError } from '#shared/domain/errors';

/**
 * An item read from DynamoDB, checked with the schema of what it should be: items are data from
 * outside this process (another tool, a console edit, an older version), never trusted as typed.
 * An item that fails is InvalidStoredItemError, naming the item by its key and each field at
 * fault with its problem (never a value: items may hold what must not reach a log).
 */
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
