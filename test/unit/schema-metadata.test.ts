import * as v from 'valibot';
import { expect, describe as group, it } from 'vitest';
import { describe, isOpenApiMetadata, openApiMetadataOf } from '#shared/schema/describe';

/** The OpenAPI metadata a schema carries for the document, and what it changes of validation: nothing. */

group('a described schema', () => {
  const Name = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'));
  const meta = { id: 'Name', description: 'A name.', example: 'Rex', format: 'text' };
  const Described = describe(Name, meta);

  it('validates exactly as the schema it describes, messages included', () => {
    for (const value of ['Rex', '', 3, undefined]) {
      const [described, plain] = [v.safeParse(Described, value), v.safeParse(Name, value)];
      expect(described.success).toBe(plain.success);
      expect(described.issues?.map(({ message }) => message)).toEqual(
        plain.issues?.map(({ message }) => message),
      );
    }
    expect(v.parse(Described, 'Rex')).toBe('Rex');
  });

  it('gives the document its metadata and the schema it describes', () => {
    const metadata = openApiMetadataOf(Described);

    expect(metadata).toMatchObject({ kind: 'metadata', type: 'openapi', meta });
    expect(metadata?.schema).toBe(Name);
    expect(typeof metadata?.reference).toBe('function');
    expect(isOpenApiMetadata(metadata)).toBe(true);
  });

  it('is told apart from a schema that is not described, or whose pipe holds more than the description', () => {
    const item = Described.pipe[1];

    expect(openApiMetadataOf(Name)).toBeUndefined();
    expect(openApiMetadataOf(v.string())).toBeUndefined();
    expect(
      openApiMetadataOf(
        v.pipe(
          Described,
          v.check(() => true),
        ),
      ),
    ).toBeUndefined();
    expect(openApiMetadataOf(v.pipe(Name, v.minLength(2), item))).toBeUndefined();
    // Metadata written for another schema than the one it follows.
    expect(openApiMetadataOf(v.pipe(v.string(), item))).toBeUndefined();
  });
});

group('OpenAPI metadata', () => {
  it('is an object that says it is metadata, of the openapi kind', () => {
    expect(isOpenApiMetadata({ kind: 'metadata', type: 'openapi' })).toBe(true);
    expect(isOpenApiMetadata({ kind: 'metadata', type: 'title' })).toBe(false);
    expect(isOpenApiMetadata({ kind: 'validation', type: 'openapi' })).toBe(false);
    expect(isOpenApiMetadata({ type: 'openapi' })).toBe(false);
    expect(isOpenApiMetadata(v.minLength(1))).toBe(false);
    expect(isOpenApiMetadata(null)).toBe(false);
    expect(isOpenApiMetadata('openapi')).toBe(false);
  });
});
