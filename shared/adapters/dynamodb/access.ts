import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableKey } from '#shared/config';

/**
 * Typed table access: a function's handler sees only the methods it allows (`petsTable.allow('update')`),
 * the stack grants exactly their calls, and outside AWS the client refuses others as IAM would.
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

export type TableCalls = readonly Omit<TableAccess, 'table'>[];

/** The methods of a table's adapter a function uses: their calls, and how to open the adapter. */
export interface TableUse<T> {
  readonly table: TableKey;
  readonly data: readonly TableAccess[];
  readonly open: (client: DynamoDBDocumentClient, tableName: string) => T;
}

/** A table's adapter: `open` builds it on a client, `calls` are its methods' calls, `allow` a function's use. */
export const defineTable = <A, const C extends { readonly [M in keyof A]?: TableCalls }>(
  table: TableKey,
  calls: C,
  open: (client: DynamoDBDocumentClient, tableName: string) => A,
) => ({
  table,
  calls,
  allow: <const M extends keyof C & keyof A & string>(...methods: M[]): TableUse<Pick<A, M>> => ({
    table,
    data: methods.flatMap((method) =>
      ((calls[method] ?? []) as TableCalls).map((call) => ({ table, ...call })),
    ),
    open,
  }),
});

export const tablesOf = (accesses: readonly TableAccess[]): TableKey[] => [
  ...new Set(accesses.map((access) => access.table)),
];

/** A function's grants as its client enforces them where IAM is absent (DynamoDB Local). */
export interface DataGrants {
  /** The function, as a refusal names it. */
  readonly name: string;
  readonly data: readonly TableAccess[];
  readonly tables: Readonly<Partial<Record<TableKey, string>>>;
}

export interface DynamoDbCall {
  readonly action: string;
  readonly tableName: string | undefined;
  readonly index: string | undefined;
}

/**
 * Why IAM would refuse `call` to `grants`, in the form of "Troubleshoot access denied error messages";
 * an index is a resource of its own, per (DynamoDB Developer Guide)
 * "IAM policy to grant access to a specific DynamoDB table and its indexes".
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
    `User: ${grants.name} (a local run, where its declared uses stand in for its role) is not authorized to perform: ` +
    `${call.action} on resource: ${resource} because no identity-based policy allows the ${call.action} action. ` +
    `Its declared uses (its module in functions/) lack ${missing}`
  );
};
