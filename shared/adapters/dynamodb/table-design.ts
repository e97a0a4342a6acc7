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

/** Pets, one item per pet, keyed by id. Holds nothing but pets, so a scan counts only pets. */
export const PETS_TABLE = {
  key: 'pets',
  logicalName: 'Pets',
  partitionKey: { name: 'id', type: 'N' },
  indexes: [
    {
      indexName: 'status-index',
      partitionKey: { name: 'status', type: 'S' },
      sortKey: { name: 'id', type: 'N' },
    },
  ],
} as const satisfies TableDesign;

export const STATUS_INDEX = PETS_TABLE.indexes[0];

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
