import type {
  ExpectedVersions,
  ListPetsOptions,
  Pet,
  PetPage,
  PetPatch,
  VersionedPet,
} from '#shared/domain/pet';

/**
 * Where pets are kept. The domain talks only to this interface; the DynamoDB adapter implements
 * it and translates the SDK's failures into domain errors, so no SDK type crosses this line.
 */
export interface PetRepository {
  /**
   * Stores a new pet under its id, never over another pet (PetIdTakenError). Safe to repeat: when
   * this very pet is already stored (an earlier attempt of the write, applied though its answer
   * was lost), it succeeds.
   */
  create(pet: Pet): Promise<void>;
  /**
   * The pet with this id and its version, or `undefined` when there is none; a stored item that
   * is not a valid pet is InvalidStoredItemError.
   */
  get(id: number): Promise<VersionedPet | undefined>;
  /**
   * Applies `patch` to the pet in one write, if it is at one of the `expected` versions (any,
   * when undefined), and moves it to its next version; the pet as changed. No pet:
   * PetNotFoundError; another version: PetVersionMismatchError, and nothing changes. Listings
   * by status follow the change at once.
   */
  update(id: number, patch: PetPatch, expected: ExpectedVersions): Promise<VersionedPet>;
  /**
   * Removes the pet in one write, if it is at one of the `expected` versions (any, when
   * undefined). No pet: PetNotFoundError; another version: PetVersionMismatchError.
   */
  remove(id: number, expected: ExpectedVersions): Promise<void>;
  /**
   * One page: at most `limit` pets from where `after` says (from the start without it),
   * optionally only those with `status`; in an order of the repository's own (not by age: the
   * DynamoDB adapter walks a status shard after shard, and the table in storage order). `next` is
   * set only when more pets follow, so walking the pages visits each pet that exists throughout
   * once and never ends on an empty page.
   */
  list(options: ListPetsOptions): Promise<PetPage>;
}
