import { STATUS_SHARD_INDEX } from '#shared/adapters/dynamodb/table-design';
import type { TableKey } from '#shared/config';

/**
 * What each adapter method calls, on which table or index. A function's root lists the entries
 * of the methods it uses (its `data`); the stack grants exactly these actions on exactly these
 * resources, and sets exactly these tables' variables. Outside AWS the function's client refuses
 * any other call (`refusalOf`), so a missing entry fails npm start and the tests as it would fail
 * in Lambda; the contract suite's run checks that each root declares no call its function never
 * makes (test/http/contract.test.ts).
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
    /** One conditional UpdateItem (returning the item it met when refused). */
    update: [{ table: 'pets', actions: ['dynamodb:UpdateItem'] }],
    /** One conditional DeleteItem (returning the item it met when refused). */
    remove: [{ table: 'pets', actions: ['dynamodb:DeleteItem'] }],
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

/**
 * A function's grants as its DynamoDB client enforces them where IAM is absent (DynamoDB Local):
 * its root's `data`, and the names its configuration gives those tables.
 */
export interface DataGrants {
  /** The function, as a refusal names it. */
  readonly name: string;
  readonly data: readonly TableAccess[];
  readonly tables: Readonly<Partial<Record<TableKey, string>>>;
}

/** One call as IAM authorizes it: the action, and the table (by name) and index it names. */
export interface DynamoDbCall {
  readonly action: string;
  readonly tableName: string | undefined;
  readonly index: string | undefined;
}

/**
 * Why IAM would refuse `call` to a role holding `grants`, in the words of an AWS refusal, and the
 * entry of `data` that would allow it; undefined when one does. It follows IAM as AWS documents it:
 * "Troubleshoot access denied error messages" (IAM User Guide) gives the form of an implicit deny,
 * "User: … is not authorized to perform: … on resource: … because no identity-based policy allows
 * the … action"; and "IAM policy to grant access to a specific DynamoDB table and its indexes"
 * (DynamoDB Developer Guide) names an index as a resource of its own (`table/Books/index/*` beside
 * `table/Books`), so a grant on a table does not cover its indexes, nor one on an index its table.
 */
export const refusalOf = (grants: DataGrants, call: DynamoDbCall): string | undefined => {
  const table = (Object.keys(grants.tables) as TableKey[]).find(
    (key) => grants.tables[key] === call.tableName,
  );
  const allowed = grants.data.some(
    (access) =>
      access.table === table &&
      access.index === call.index &&
      (access.actions as readonly string[]).includes(call.action),
  );
  if (allowed) return undefined;
  const resource = `table/${call.tableName ?? '(none)'}${call.index ? `/index/${call.index}` : ''}`;
  const missing = table
    ? `{ table: '${table}', ${call.index ? `index: '${call.index}', ` : ''}actions: ['${call.action}'] }`
    : `one for a table its configuration does not name`;
  return (
    `User: ${grants.name} (a local run, where its root's data stands in for its role) is not authorized to perform: ` +
    `${call.action} on resource: ${resource} because no identity-based policy allows the ${call.action} action. ` +
    `Its root's data (DATA_ACCESS, shared/adapters/dynamodb/access.ts) lacks ${missing}`
  );
};
