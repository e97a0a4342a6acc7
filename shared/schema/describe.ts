import * as v from 'valibot';

/** OpenAPI metadata of a schema, as the document shows it. */
export interface OpenApiMeta {
  /** Makes the schema a named component of the document (`#/components/schemas/<id>`). */
  readonly id?: string;
  readonly description?: string;
  readonly example?: unknown;
  readonly format?: string;
  /**
   * The `pattern`s the document states for a string, in place of its regexes' own, when those use more than
   * the regular expressions JSON Schema recommends for interoperability (Unicode property escapes: Python's
   * `re` refuses them, and without the `u` flag they match nothing). `[]` leaves the rules to the description.
   */
  readonly patterns?: readonly string[];
}

/** The pipe item describe() adds: valibot skips metadata when it validates, so it costs a parse nothing. */
export interface OpenApiMetadata<TInput> extends v.BaseMetadata<TInput> {
  readonly type: 'openapi';
  readonly reference: typeof openApiMetadata;
  readonly schema: v.GenericSchema;
  readonly meta: OpenApiMeta;
}

/* @__NO_SIDE_EFFECTS__ */
const openApiMetadata = <TInput>(schema: v.GenericSchema, meta: OpenApiMeta): OpenApiMetadata<TInput> => ({
  kind: 'metadata',
  type: 'openapi',
  reference: openApiMetadata,
  schema,
  meta,
});

/** No side effect (no registry), so bundlers drop unused schemas (esbuild 0.28: within a file only). */
/* @__NO_SIDE_EFFECTS__ */
export const describe = <const T extends v.GenericSchema>(
  schema: T,
  meta: OpenApiMeta,
): v.SchemaWithPipe<readonly [T, OpenApiMetadata<v.InferOutput<T>>]> =>
  v.pipe(schema, openApiMetadata<v.InferOutput<T>>(schema, meta));

export const isOpenApiMetadata = (item: unknown): item is OpenApiMetadata<unknown> =>
  typeof item === 'object' &&
  item !== null &&
  (item as { type?: unknown }).type === 'openapi' &&
  (item as { kind?: unknown }).kind === 'metadata';

export const openApiMetadataOf = (schema: v.GenericSchema): OpenApiMetadata<unknown> | undefined => {
  const pipe = (schema as { readonly pipe?: readonly unknown[] }).pipe;
  const last = pipe?.at(-1);
  return isOpenApiMetadata(last) && pipe?.length === 2 && pipe[0] === last.schema ? last : undefined;
};
