import * as v from 'valibot';
import type { StrictObjectMessages } from '#shared/schema/objects';

/** What the query parameters of an operation are told: every one it does not read is refused. */
export const QUERY_PARAMETERS: StrictObjectMessages = {
  notObject: 'must be query parameters',
  unknownKey: 'is not a known query parameter',
};

/** What the path parameters of an operation are told (API Gateway sends only the path's own). */
export const PATH_PARAMETERS: StrictObjectMessages = {
  notObject: 'must be path parameters',
  unknownKey: 'is not a known path parameter',
};

const INTEGER_PARAMS = new WeakMap<v.GenericSchema, v.GenericSchema<number>>();

/** A decimal integer value (`?limit=1e1` is not), then checked by `schema`; safe to drop unused. */
/* @__NO_SIDE_EFFECTS__ */
export const integerParam = <const T extends v.GenericSchema<number>>(schema: T) => {
  const param = v.pipe(
    v.string('must be an integer'),
    v.regex(/^-?\d+$/, 'must be an integer'),
    v.transform(Number),
    schema,
  );
  INTEGER_PARAMS.set(param, schema);
  return param;
};

/** The schema of the integer an `integerParam` decodes to, as the document shows it. */
export const decodedIntegerOf = (schema: v.GenericSchema): v.GenericSchema<number> | undefined =>
  INTEGER_PARAMS.get(schema);
