import type { ListPetsOptions, Pet } from '#shared/domain/pet';

/**
 * Where pets are kept. The domain talks only to this interface; the DynamoDB adapter implements
 * it and translates the SDK's failures into domain errors, so no SDK type crosses this line.
 */
export interface PetRepository {
  /** Stores a new pet; its id comes from the IdSequence and is never already taken. */
  create(pet: Pet): Promise<void>;
  /** The pet with this id, or `undefined` when there is none. */
  get(id: number): Promise<Pet | undefined>;
  /** At most `limit` pets, optionally only those with `status`; ascending id when filtered. */
  list(options: ListPetsOptions): Promise<Pet[]>;
}
