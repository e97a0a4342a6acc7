import { STATUS_SHARD_INDEX } from '#shared/adapters/dynamodb/table-design';
import type { TableKey } from '#shared/config';

/**
 * What each adapter method calls, on which table or index. An operation's descriptor lists the
 * entries of the methods it uses; the stack grants exactly these actions on exactly these
 * resources, and sets exactly these tables' variables. An integration test records the commands
 * each method really sends and fails if one is missing here.
 */

export type DynamoDbAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:Query'
  | 'dynamodb:Scan';

export interface TableAccess {
  readonly table: TableKey;
  /** The index the actions apply to; the table itself when omitted. */
  readonly index?: string;
  readonly actions: readonly DynamoDbAction[];
}

export const DATA_ACCESS = {
  pets: {
    /** Strongly consistent GetItem by id. */
    get: [{ table: 'pets', actions: ['dynamodb:GetItem'] }],
    /** A Scan of the table (unfiltered) or Queries of the status index, shard after shard (filtered). */
    list: [
      { table: 'pets', actions: ['dynamodb:Scan'] },
      { table: 'pets', index: STATUS_SHARD_INDEX.indexName, actions: ['dynamodb:Query'] },
    ],
    /** A conditional PutItem of a new pet (returning the item it met when refused). */
    create: [{ table: 'pets', actions: ['dynamodb:PutItem'] }],
  },
  ids: {
    /** An atomic ADD on the counter item, once per block of ids (hi/lo). */
    next: [{ table: 'counters', actions: ['dynamodb:UpdateItem'] }],
  },
  apiKeys: {
    /** GetItem by the key's hash: all the authorizer does. */
    findByHash: [{ table: 'apiKeys', actions: ['dynamodb:GetItem'] }],
  },
  idempotency: {
    /**
     * The records of idempotent creates: a conditional PutItem starts one, conditional
     * UpdateItems take its lock over, complete it or release its lock. Refused writes return the
     * record they met, so no GetItem is needed; a record is never deleted (its TTL ends it).
     */
    record: [{ table: 'idempotency', actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'] }],
  },
} as const satisfies Record<string, Record<string, readonly TableAccess[]>>;

/** The tables a list of accesses touches, each once. */
export const tablesOf = (accesses: readonly TableAccess[]): TableKey[] => [
  ...new Set(accesses.map((access) => access.table)),
];
