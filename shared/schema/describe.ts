import * as z from 'zod/mini';

/**
 * Attaches OpenAPI metadata to a schema (`id` makes a named component, `description`, `example`,
 * `format`…) and returns the schema. The metadata lives in zod's global registry, where the
 * document generator (tools/openapi/) reads it; validation never looks at it.
 */
export const describe = <T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T => {
  z.globalRegistry.add(schema as z.ZodMiniType, meta);
  return schema;
};
