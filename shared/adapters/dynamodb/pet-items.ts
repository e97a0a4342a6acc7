import { type STATUS_SHARD_INDEX, STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import { FIRST_VERSION, type Pet, type PetStatus } from '#shared/domain/pet';

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
