import type { TableKey } from '#shared/config';
import type { PetFieldName } from '#shared/domain/pet';

/** The shape of every DynamoDB table, read by the stack and the local table creation alike. */

export type KeyType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: KeyType;
}

export interface IndexDesign {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
}

export interface TableDesign {
  readonly key: TableKey;
  /** Logical name: CDK construct id, and suffix of the local table name. */
  readonly logicalName: string;
  readonly partitionKey: KeyAttribute;
  /** Global secondary indexes: the stack makes each, and alarms on its throttles (infra/constructs/monitoring.ts). */
  readonly indexes: readonly IndexDesign[];
  /** Attribute DynamoDB deletes items by, once its epoch-seconds value has passed. */
  readonly timeToLiveAttribute?: string;
  /** Its stream's records: the item before and after each write. @default no stream */
  readonly stream?: 'NEW_AND_OLD_IMAGES';
}

/**
 * An index of the pets table a listing walks (http/listing.ts): keyed by a pet field's value, split into
 * `shards` partitions by id (`<value>#<id mod shards>`, in an attribute of its own) when one value could
 * take more than a partition's writes, sorted by id. Unsharded, the partition key is the field itself.
 */
export interface PetIndexDesign extends IndexDesign {
  readonly field: PetFieldName;
  readonly shards: number;
  readonly sortKey: { readonly name: 'id'; readonly type: 'N' };
}

/** Keeps each status key under a partition's 1,000 writes/s up to 16,000 creates/s (BENCHMARKS.md, "Partition load"). */
export const STATUS_SHARDS = 16;

/** The status index: partition key `statusShard` (`<status>#<id mod STATUS_SHARDS>`), sort key `id`. */
export const STATUS_SHARD_INDEX = {
  indexName: 'status-shard-index',
  partitionKey: { name: 'statusShard', type: 'S' },
  sortKey: { name: 'id', type: 'N' },
  field: 'status',
  shards: STATUS_SHARDS,
} as const satisfies PetIndexDesign;

/** Every index of the pets table: each stored pet carries the key of each one (adapters/dynamodb/pet-items.ts). */
export const PET_INDEXES: readonly PetIndexDesign[] = [STATUS_SHARD_INDEX];

/**
 * Nothing but pets, so a scan counts only pets. Its stream is the outbox of the pets' events
 * (functions/publish-pet-events.ts): a write and its event cannot disagree.
 */
export const PETS_TABLE = {
  key: 'pets',
  logicalName: 'Pets',
  partitionKey: { name: 'id', type: 'N' },
  indexes: PET_INDEXES,
  stream: 'NEW_AND_OLD_IMAGES',
} as const satisfies TableDesign;

export const COUNTERS_TABLE = {
  key: 'counters',
  logicalName: 'Counters',
  partitionKey: { name: 'name', type: 'S' },
  indexes: [],
} as const satisfies TableDesign;

/** API keys, stored only as the hex SHA-256 of the key. */
export const API_KEYS_TABLE = {
  key: 'apiKeys',
  logicalName: 'ApiKeys',
  partitionKey: { name: 'keyHash', type: 'S' },
  indexes: [],
} as const satisfies TableDesign;

/** Idempotency records of createPet; `expiration` (epoch seconds) is their end and the TTL. */
export const IDEMPOTENCY_TABLE = {
  key: 'idempotency',
  logicalName: 'Idempotency',
  partitionKey: { name: 'id', type: 'S' },
  indexes: [],
  timeToLiveAttribute: 'expiration',
} as const satisfies TableDesign;

export const ALL_TABLES: readonly TableDesign[] = [
  PETS_TABLE,
  COUNTERS_TABLE,
  API_KEYS_TABLE,
  IDEMPOTENCY_TABLE,
];
