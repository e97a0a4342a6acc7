import * as z from 'zod/mini';

/** A JSON Schema (2020-12) object, as OpenAPI 3.1 takes it. */
export type JsonSchema = { [keyword: string]: unknown };

export type SchemaSide = 'input' | 'output';

/** Where named schemas live in the document. */
export const COMPONENT_SCHEMAS = '#/components/schemas/';

const relink = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(relink);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string'
        ? inner.replace(/^#\/\$defs\//, COMPONENT_SCHEMAS)
        : relink(inner),
    ]),
  );
};

/** The JSON Schema zod emits for `schema` on one side, without the `$schema` dialect line. */
export const emit = (
  schema: z.ZodMiniType,
  io: SchemaSide,
): JsonSchema & { $defs?: Record<string, JsonSchema> } => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
  }) as JsonSchema;
  return rest;
};

/**
 * The named schemas of the document. Every zod schema with `.meta({ id })` that a request or a
 * response uses becomes `components.schemas[id]`, exactly as zod emits it (for the side it is used
 * on: request bodies as input, everything else as output) with its `$ref`s pointing at components.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /**
   * The JSON Schema of `schema` seen from `io`, named schemas replaced by `$ref`s to components.
   * Fails when a named schema would need two different forms (its input and output sides differ
   * and both are used): one id cannot describe both; give each side its own id.
   */
  use(schema: z.ZodMiniType, io: SchemaSide): JsonSchema {
    const { $defs = {}, ...root } = emit(schema, io);
    for (const [id, definition] of Object.entries($defs)) {
      const linked = relink(definition) as JsonSchema;
      const known = this.schemas[id];
      if (known && JSON.stringify(known) !== JSON.stringify(linked)) {
        throw new Error(`Schema "${id}" is used with two different forms (one of them as ${io}); split it`);
      }
      this.schemas[id] = linked;
    }
    return relink(root) as JsonSchema;
  }
}
