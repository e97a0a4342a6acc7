import { PetId } from '#shared/domain/pet';
import { integerParam, PATH_PARAMETERS } from '#shared/http/params';
import { describe } from '#shared/schema/describe';
import { strictObject } from '#shared/schema/objects';

/** The path of every operation on one pet (`/pets/{petId}`). */
export const PetIdPath = strictObject(
  { petId: describe(integerParam(PetId), { description: 'Identifier of the animal.' }) },
  PATH_PARAMETERS,
);
