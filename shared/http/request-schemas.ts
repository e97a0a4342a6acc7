import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, ListPetsOptions, NewPet, PetId, PetStatus } from '#shared/domain/pet';

/**
 * What each operation accepts from the HTTP request, by part (`query`, `path`, `body`), built from
 * the domain schemas. The validation middleware parses requests with these; the OpenAPI document
 * is generated from them (its parameters from their output side).
 */

/** A query or path value that must be a decimal integer, then checked by the domain schema. */
const integerParam = <T extends z.ZodType<number, number>>(schema: T) =>
  z
    .string()
    .regex(/^-?\d+$/, { error: 'must be an integer' })
    .transform(Number)
    .pipe(schema);

export const ListPetsQuery = z.strictObject(
  {
    limit: integerParam(ListPetsOptions.shape.limit)
      .default(LIST_LIMIT_DEFAULT)
      .meta({ description: 'Maximum number of animals returned.' }),
    status: PetStatus.optional().meta({ description: 'Only animals with this availability.' }),
  },
  { error: 'is not a known query parameter' },
);

export const GetPetPath = z.strictObject({
  petId: integerParam(PetId).meta({ description: 'Identifier of the animal.' }),
});

export const listPetsRequest = z.object({ query: ListPetsQuery });
export const createPetRequest = z.object({ body: NewPet });
export const getPetRequest = z.object({ path: GetPetPath });

/** The shape every request schema has: some of `query`, `path` and `body`. */
export type RequestSchema = z.ZodObject<{
  query?: z.ZodType;
  path?: z.ZodType;
  body?: z.ZodType;
}>;
