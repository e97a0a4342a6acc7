import { type STATUS_SHARD_INDEX, STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import { FIRST_VERSION, type Pet, type PetStatus } from '#shared/domain/pet';

/** The shard of the status index a pet falls in: its id modulo STATUS_SHARDS. */
export const shardOf = (id: number): number => id % STATUS_SHARDS;

/** The status index's partition key for a status and a shard: `available#3`. */
export const statusShardKey = (status: PetStatus, shard: number): string => `${status}#${shard}`;

type StatusShardAttribute = typeof STATUS_SHARD_INDEX.partitionKey.name;

/**
 * The item a new pet is stored as: the Pet's own fields, the key of its status index shard, and
 * its first version. A change also writes `changeId`, which tells a retry its own change.
 */
export const petItem = (pet: Pet): Pet & Record<StatusShardAttribute, string> & { version: number } => ({
  ...pet,
  statusShard: statusShardKey(pet.status, shardOf(pet.id)),
  version: FIRST_VERSION,
});
