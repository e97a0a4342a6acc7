/**
 * The shape of every DynamoDB table: key attributes and indexes. The CDK stack and the local
 * server's table creation both read it, so the deployed and the local tables cannot differ.
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
  /** Logical name: CDK construct id, and suffix of the local table name. */
  readonly logicalName: string;
  readonly partitionKey: KeyAttribute;
  readonly indexes: readonly IndexDesign[];
}

/** Pets, one item per pet, keyed by id. Holds nothing but pets, so a scan counts only pets. */
export const PETS_TABLE = {
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
  logicalName: 'Counters',
  partitionKey: { name: 'name', type: 'S' },
  indexes: [],
} as const satisfies TableDesign;

/** API keys, stored only as the hex SHA-256 of the key. */
export const API_KEYS_TABLE = {
  logicalName: 'ApiKeys',
  partitionKey: { name: 'keyHash', type: 'S' },
  indexes: [],
} as const satisfies TableDesign;

export const ALL_TABLES: readonly TableDesign[] = [PETS_TABLE, COUNTERS_TABLE, API_KEYS_TABLE];
