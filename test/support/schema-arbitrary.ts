import fc from 'fast-check';
import * as v from 'valibot';

/**
 * Values a valibot schema accepts, generated from the schema itself (its type and its bounds), so a
 * property test over a declaration of fields covers a field the day it is declared. Schemas of kinds
 * it does not know fail the test, naming the kind.
 */

type Pipe = readonly { readonly type: string; readonly requirement?: unknown }[];

const pipeOf = (schema: v.GenericSchema): Pipe => (schema as { pipe?: Pipe }).pipe?.slice(1) ?? [];

const bound = (pipe: Pipe, type: string): number | undefined => {
  const action = pipe.find((item) => item.type === type);
  return typeof action?.requirement === 'number' ? action.requirement : undefined;
};

const baseOf = (schema: v.GenericSchema): v.GenericSchema =>
  (schema as { pipe?: readonly v.GenericSchema[] }).pipe?.[0] ?? schema;

/** Values `schema` accepts: an optional one also leaves the value out (`undefined`). */
export const arbitraryOf = (schema: v.GenericSchema): fc.Arbitrary<unknown> => {
  const base = baseOf(schema);
  const pipe = pipeOf(schema);
  const generated = ((): fc.Arbitrary<unknown> => {
    switch (base.type) {
      case 'optional':
        return fc.option(arbitraryOf((base as v.OptionalSchema<v.GenericSchema, unknown>).wrapped), {
          nil: undefined,
        });
      case 'picklist':
        return fc.constantFrom(...(base as v.PicklistSchema<v.PicklistOptions, undefined>).options);
      case 'number':
        return fc.integer({
          min: bound(pipe, 'min_value') ?? Number.MIN_SAFE_INTEGER,
          max: bound(pipe, 'max_value') ?? Number.MAX_SAFE_INTEGER,
        });
      case 'string':
        return fc.string({
          unit: 'grapheme',
          minLength: bound(pipe, 'min_length') ?? 0,
          maxLength: Math.min(bound(pipe, 'max_length') ?? bound(pipe, 'max_code_points') ?? 40, 40),
        });
      case 'array':
        return fc.array(arbitraryOf((base as v.ArraySchema<v.GenericSchema, undefined>).item), {
          minLength: bound(pipe, 'min_length') ?? 0,
          maxLength: bound(pipe, 'max_length') ?? 5,
        });
      default:
        throw new Error(`arbitraryOf cannot generate values of a ${base.type} schema: teach it`);
    }
  })();
  // Bounds it does not read (a pattern, a check) are kept by the schema itself.
  return generated.filter((value) => value === undefined || v.is(schema, value));
};

/** Objects `entries` accept: each key's value generated from its schema, an undefined one left out. */
export const objectArbitraryOf = (entries: v.ObjectEntries): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .record(Object.fromEntries(Object.entries(entries).map(([key, schema]) => [key, arbitraryOf(schema)])))
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));

/** The entries of an object schema, through the pipes and metadata wrapped around it. */
export const entriesOf = (schema: v.GenericSchema): v.ObjectEntries => {
  const entries = (schema as { entries?: v.ObjectEntries }).entries;
  if (entries) return entries;
  const base = baseOf(schema);
  if (base === schema) throw new Error(`A ${schema.type} schema has no entries`);
  return entriesOf(base);
};
