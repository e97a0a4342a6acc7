import * as z from 'zod/mini';
import { describe, LIST_LIMIT_DEFAULT, ListPetsOptions, NewPet, PetId, PetStatus } from '#shared/domain/pet';

/**
 * What each operation accepts from the HTTP request, by part (`query`, `path`, `body`), built from
 * the domain schemas. The validation middleware parses requests with these; the OpenAPI document
 * is generated from them (its parameters from their output side).
 */

/** A query or path value that must be a decimal integer, then checked by the domain schema. */
const integerParam = <T extends z.ZodMiniType<number, number>>(schema: T) =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^-?\d+$/, { error: 'must be an integer' })), z.transform(Number)),
    schema,
  );

export const ListPetsQuery = z.strictObject(
  {
    limit: describe(z._default(integerParam(ListPetsOptions.shape.limit), LIST_LIMIT_DEFAULT), {
      description: 'Maximum number of animals returned.',
    }),
    status: describe(z.optional(PetStatus), { description: 'Only animals with this availability.' }),
  },
  { error: 'is not a known query parameter' },
);

export const GetPetPath = z.strictObject({
  petId: describe(integerParam(PetId), { description: 'Identifier of the animal.' }),
});

export const listPetsRequest = z.object({ query: ListPetsQuery });
export const createPetRequest = z.object({ body: NewPet });
export const getPetRequest = z.object({ path: GetPetPath });

/** The shape every request schema has: some of `query`, `path` and `body`. */
export type RequestSchema = z.ZodMiniObject<{
  query?: z.ZodMiniType;
  path?: z.ZodMiniType;
  body?: z.ZodMiniType;
}>;
