import { isDeepStrictEqual } from 'node:util';
import * as v from 'valibot';
import { type STATUS_SHARD_INDEX, STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import { FIRST_VERSION, type Pet, type PetStatus, StoredPet } from '#shared/domain/pet';

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

/** Whether a stored item is this pet, every field alike (a retried write meeting its own earlier attempt). */
export const isStoredPet = (item: Record<string, unknown>, pet: Pet): boolean => {
  const stored = v.safeParse(StoredPet, item);
  return stored.success && isDeepStrictEqual(stored.output, pet);
};
