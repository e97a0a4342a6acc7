import * as v from 'valibot';
import { parseStoredItem } from '#shared/adapters/dynamodb/stored-items';
import { type STATUS_SHARD_INDEX, STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import {
  FIRST_VERSION,
  MAX_ID,
  type Pet,
  type PetStatus,
  StoredPet,
  type VersionedPet,
} from '#shared/domain/pet';
import { object } from '#shared/schema/objects';

export const shardOf = (id: number): number => id % STATUS_SHARDS;

/** `available#3`. */
export const statusShardKey = (status: PetStatus, shard: number): string => `${status}#${shard}`;

type StatusShardAttribute = typeof STATUS_SHARD_INDEX.partitionKey.name;

/** The item a new pet is stored as; a change also writes `changeId`, which tells a retry its own change. */
export const petItem = (pet: Pet): Pet & Record<StatusShardAttribute, string> & { version: number } => ({
  ...pet,
  statusShard: statusShardKey(pet.status, shardOf(pet.id)),
  version: FIRST_VERSION,
});

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
