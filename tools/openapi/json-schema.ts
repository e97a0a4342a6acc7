import {
  type JsonSchema,
  type OverrideActionContext,
  type OverrideSchemaContext,
  toJsonSchema,
} from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { isOpenApiMetadata, type OpenApiMeta } from '#shared/schema/describe';

/**
 * A pattern as the document states it. One that ends at `$` is held to the very end in every engine:
 * JavaScript's `$` (no `m` flag) matches only there, but Python's `re`, which Python's jsonschema searches
 * with, also matches before a final newline, so `^[a-z]+$` would take `"abc\n"`. `(?!\n)` after it, "and
 * no newline follows", is true at the end in both, and leaves JavaScript's reading as it was.
 */
export const documentPattern = (source: string): string =>
  /(?<!\\)\$$/.test(source) ? `${source}(?!\\n)` : source;

/** `schema` with `patterns` where its own `pattern`, or its `allOf` of them, stood (after its other keywords if it had none). */
const withPatterns = (schema: JsonSchema, patterns: readonly string[]): JsonSchema => {
  const stated =
    patterns.length === 1
      ? { pattern: documentPattern(patterns[0] ?? '') }
      : patterns.length > 1
        ? { allOf: patterns.map((pattern) => ({ pattern: documentPattern(pattern) })) }
        : {};
  const entries = Object.entries(schema);
  const at = entries.findIndex(([key]) => key === 'pattern' || key === 'allOf');
  const kept = entries.filter(([key]) => key !== 'pattern' && key !== 'allOf');
  const place = at < 0 ? kept.length : at;
  return Object.fromEntries([
    ...kept.slice(0, place),
    ...Object.entries(stated),
    ...kept.slice(place),
  ]) as JsonSchema;
};

/** What a client sends (`input`), or what the service answers (`output`). */
type Direction = 'input' | 'output';

const COMPONENT_REF = '#/components/schemas/';

/** What a document reads: OpenAPI 3.1's JSON Schema, AsyncAPI 3's (draft-07), EventBridge's schema registry's (OpenAPI 3.0). */
export type SchemaTarget = 'draft-2020-12' | 'draft-07' | 'openapi-3.0';

/** JSON Schema by `@valibot/to-json-schema` (2020-12 unless told); one per document, so components convert alike. */
export class SchemaConverter {
  private readonly components = new Map<string, JsonSchema>();

  constructor(private readonly target: SchemaTarget = 'draft-2020-12') {}

  convert(schema: v.GenericSchema, direction: Direction): JsonSchema {
    const { $schema: _dialect, ...converted } = toJsonSchema(schema, {
      target: this.target,
      typeMode: direction,
      // Checks JSON Schema cannot state: left to the prose.
      ignoreActions: ['check', 'raw_check', 'partial_check'],
      overrideSchema: (context) => this.overrideSchema(context, direction),
      overrideAction: (context) => this.overrideAction(context),
    });
    return converted;
  }

  /** The named components in the order a reader meets them in `roots`: `components.schemas`' order. */
  componentsIn(roots: readonly unknown[]): Record<string, JsonSchema> {
    const ordered: Record<string, JsonSchema> = {};
    // JSON.stringify's replacer sees every key of the tree, depth first and in order.
    const visit = (value: unknown) =>
      JSON.stringify(value, (key, item: unknown) => {
        const name = typeof item === 'string' && key === '$ref' ? item.slice(COMPONENT_REF.length) : '';
        const component = item === `${COMPONENT_REF}${name}` ? this.components.get(name) : undefined;
        if (component && !(name in ordered)) {
          ordered[name] = component;
          visit(component);
        }
        return item;
      });
    visit(roots);
    return ordered;
  }

  private overrideSchema(
    { valibotSchema, jsonSchema }: OverrideSchemaContext,
    direction: Direction,
  ): JsonSchema | undefined {
    switch (valibotSchema.type) {
      case 'picklist': {
        const { type, enum: values, ...rest } = jsonSchema;
        return { ...(type === undefined ? {} : { type }), enum: values, ...rest } as JsonSchema;
      }
      case 'literal': {
        const { literal } = valibotSchema as v.LiteralSchema<v.Literal, undefined>;
        return { type: typeof literal as 'string' | 'number' | 'boolean', ...jsonSchema };
      }
      // What the service answers holds the object's keys and no other: valibot leaves the rest out.
      case 'object':
        return direction === 'output' ? { ...jsonSchema, additionalProperties: false } : undefined;
      case 'loose_object':
        return { ...jsonSchema, additionalProperties: {} };
      default:
        return undefined;
    }
  }

  private overrideAction({
    valibotAction,
    jsonSchema,
    errors,
  }: OverrideActionContext): JsonSchema | undefined {
    if (isOpenApiMetadata(valibotAction))
      return this.described(valibotAction.schema, valibotAction.meta, jsonSchema);
    switch (valibotAction.type) {
      case 'regex':
        return this.pattern((valibotAction as v.RegexAction<string, undefined>).requirement, jsonSchema);
      // `maxLength` counts RFC 8259 code points (JSON Schema Validation 2020-12, 6.3.1); valibot's refuses.
      case 'max_code_points':
        return {
          ...jsonSchema,
          maxLength: (valibotAction as v.MaxCodePointsAction<string, number, undefined>).requirement,
        };
      // An array's item counts come before its type, as they always have in this document.
      case 'min_length':
      case 'max_length': {
        if (jsonSchema.type !== 'array' || errors) return undefined;
        const { minItems, maxItems, ...rest } = jsonSchema;
        return {
          ...(minItems === undefined ? {} : { minItems }),
          ...(maxItems === undefined ? {} : { maxItems }),
          ...rest,
        };
      }
      default:
        return undefined;
    }
  }

  /** A schema with describe()'s metadata (first for an optional value); with an `id`, a reference. */
  private described(
    schema: v.GenericSchema,
    { id, patterns, ...meta }: OpenApiMeta,
    converted: JsonSchema,
  ): JsonSchema {
    const keywords = meta as JsonSchema;
    const stated = patterns === undefined ? converted : withPatterns(converted, patterns);
    const result =
      schema.type === 'optional' ? { ...keywords, ...stated, ...keywords } : { ...stated, ...keywords };
    if (id === undefined) return result;
    const known = this.components.get(id);
    if (known && JSON.stringify(known) !== JSON.stringify(result)) {
      throw new Error(`The schema ${id} converts differently in a request and in a response`);
    }
    this.components.set(id, result);
    return { $ref: `${COMPONENT_REF}${id}` };
  }

  /** A `pattern`, or several that must all match; written for the `u` flag, as validators read one. */
  private pattern(regex: RegExp, jsonSchema: JsonSchema): JsonSchema {
    if (regex.flags !== '' && regex.flags !== 'u') {
      throw new Error(`The pattern /${regex.source}/${regex.flags} has flags JSON Schema cannot state`);
    }
    const source = documentPattern(regex.source);
    // Past the second, the converter has set this one as `pattern` again: it joins the others.
    if (jsonSchema.allOf) {
      const { pattern: _this, ...rest } = jsonSchema;
      return { ...rest, allOf: [...jsonSchema.allOf, { pattern: source }] };
    }
    // The converter states a first pattern as written: this one.
    if (jsonSchema.pattern === undefined || jsonSchema.pattern === regex.source)
      return { ...jsonSchema, pattern: source };
    // The second becomes `allOf` with the first, where `pattern` stood.
    const both = [{ pattern: jsonSchema.pattern }, { pattern: source }];
    return Object.fromEntries(
      Object.entries(jsonSchema).map(([key, value]) => (key === 'pattern' ? ['allOf', both] : [key, value])),
    ) as JsonSchema;
  }
}
