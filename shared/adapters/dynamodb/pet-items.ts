import * as v from 'valibot';
import { parseStoredItem } from '#shared/adapters/dynamodb/stored-items';
import { PET_INDEXES, type PetIndexDesign } from '#shared/adapters/dynamodb/table-design';
import {
  FIRST_VERSION,
  MAX_ID,
  type Pet,
  type PetPatch,
  StoredPet,
  type VersionedPet,
} from '#shared/domain/pet';
import { object } from '#shared/schema/objects';

/** The partition of `index` a pet with this id and field value is in: `value#shard`, or the value unsharded. */
export const partitionKeyOf = (index: PetIndexDesign, value: unknown, id: number): unknown =>
  index.shards > 1 ? `${value}#${id % index.shards}` : value;

/** The attributes of the pet's index keys that are not a field of the pet (`statusShard`), for `fields`. */
const indexKeys = (id: number, fields: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(
    PET_INDEXES.filter(
      (index) => index.partitionKey.name !== index.field && fields[index.field] !== undefined,
    ).map((index) => [index.partitionKey.name, partitionKeyOf(index, fields[index.field], id)]),
  );

/** The item a new pet is stored as; a change also writes `changeId`, which tells a retry its own change. */
export const petItem = (pet: Pet): Record<string, unknown> => ({
  ...pet,
  ...indexKeys(pet.id, pet),
  version: FIRST_VERSION,
});

/** The index keys a change moves: those of the indexes keyed by a field it sets. */
export const indexKeysMovedBy = (id: number, patch: PetPatch): Record<string, unknown> =>
  indexKeys(id, patch);

/**
 * Whether two values read from JSON or DynamoDB are alike, whatever the order of their keys. (Not
 * `node:util`'s isDeepStrictEqual: importing it loads `worker_threads` into every bundle.)
 */
const alike = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && alike((a as never)[key], (b as never)[key]))
  );
};

/** Whether a stored item is this pet, every field alike (a retried write meeting its own earlier attempt). */
export const isStoredPet = (item: Record<string, unknown>, pet: Pet): boolean => {
  const stored = v.safeParse(StoredPet, item);
  return stored.success && alike(stored.output, pet);
};

/** A stored item as a Pet (StoredPet), or InvalidStoredItemError; only the Pet's fields are kept. */
export const toPet = (item: Record<string, unknown>): Pet => parseStoredItem(StoredPet, item, 'pet', item.id);

const StoredVersion = object({
  version: v.pipe(v.number(), v.integer(), v.minValue(FIRST_VERSION), v.maxValue(MAX_ID)),
});

/** A stored item (read, or an image of the table's stream) as a pet and its version. */
export const toVersionedPet = (item: Record<string, unknown>): VersionedPet => ({
  pet: toPet(item),
  version: parseStoredItem(StoredVersion, item, 'pet', item.id).version,
});
