import type { TableKey } from '#shared/config';

/**
 * The shape of every DynamoDB table: key attributes and indexes. The CDK stack and the local
 * table creation both read it, so the deployed and the local tables cannot differ.
 */

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
  readonly indexes: readonly IndexDesign[];
  /** Attribute DynamoDB deletes items by, once its epoch-seconds value has passed. */
  readonly timeToLiveAttribute?: string;
}

/**
 * The pets of one status are spread over this many partition keys of the status index
 * (`available#0` … `available#15`), by id: each key takes 1/16 of the creates of a status, so even
 * when every create is `available` no key of the index takes more than 1,000 writes a second
 * (DynamoDB's limit per partition) below 16,000 creates a second (BENCHMARKS.md, "Partition
 * load"). Changing it changes what a listing's cursor means: bump the cursor's version with it
 * (shared/http/cursor.ts).
 */
export const STATUS_SHARDS = 16;

/** The status index: partition key `statusShard` (`<status>#<id mod STATUS_SHARDS>`), sort key `id`. */
export const STATUS_SHARD_INDEX = {
  indexName: 'status-shard-index',
  partitionKey: { name: 'statusShard', type: 'S' },
  sortKey: { name: 'id', type: 'N' },
} as const satisfies IndexDesign;

/** Pets, one item per pet, keyed by id. Holds nothing but pets, so a scan counts only pets. */
export const PETS_TABLE = {
  key: 'pets',
  logicalName: 'Pets',
  partitionKey: { name: 'id', type: 'N' },
  indexes: [STATUS_SHARD_INDEX],
} as const satisfies TableDesign;

/** Atomic counters, one item per sequence; the pet id sequence lives here, never in the pets table. */
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

/**
 * Idempotency records of createPet (dynamodb-idempotency-store.ts): one item per API key and
 * Idempotency-Key, holding the id reserved for the pet, then the pet, for 24 hours. `expiration`
 * (epoch seconds) is both the records' own end and the TTL that lets DynamoDB delete the item
 * afterwards.
 */
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
