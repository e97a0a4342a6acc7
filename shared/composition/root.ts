import { type TableAccess, tablesOf } from '#shared/adapters/dynamodb/access';
import type { TableKey } from '#shared/config';
import { type FunctionConfig, readFunctionConfig } from '#shared/config';
import type { ProxyHandler } from '#shared/lambda';
import type { Operation } from '#shared/operations/operation';

/**
 * A function's composition root: configuration in, a Lambda handler out, with exactly the
 * adapters it declares. It also declares the DynamoDB calls those adapters make (`data`), beside
 * the adapters it builds, so the operation's contract knows nothing of storage: the stack grants
 * exactly these actions and sets exactly these tables' variables.
 *
 * Nothing runs at import: each Lambda entry (`functions/<name>/lambda.ts`) calls
 * `fromEnvironment` once, at cold start; the local server, the bench and the tests call `build`
 * with a configuration of their own, and there the function's client enforces its `data` as IAM
 * enforces its role in AWS (`withGrants`).
 */
export interface FunctionRoot<H> {
  /** An operation's `operationId`, or `authorizer`. */
  readonly name: string;
  /** The DynamoDB calls the function's adapters make (shared/adapters/dynamodb/access.ts). */
  readonly data: readonly TableAccess[];
  /** Their variables are required at cold start. */
  readonly tables: readonly TableKey[];
  /** Relative to the project root. @default `functions/<kebab-case name>/lambda.ts` */
  readonly entry: string;
  readonly build: (config: FunctionConfig) => H;
}

/** The root of an API operation's function: the unit `OPERATIONS` lists (functions/operations.ts). */
export interface OperationRoot<O extends Operation = Operation> extends FunctionRoot<ProxyHandler> {
  readonly operation: O;
}

export interface RootOptions<H> {
  readonly name: string;
  readonly data: readonly TableAccess[];
  readonly build: (config: FunctionConfig) => H;
  /** For a function outside `functions/` (a test's). @default `functions/<kebab-case name>/lambda.ts` */
  readonly entry?: string;
}

/** `functions/<kebab-case name>/lambda.ts`: where a function's Lambda entry lives by convention. */
export const entryFile = (name: string): string =>
  `functions/${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}/lambda.ts`;

/**
 * The configuration a function is built with. Outside AWS (an endpoint: DynamoDB Local, which has
 * no IAM in front of it) it carries the function's grants, so its client refuses, as IAM would,
 * any call its root's `data` does not declare: a missing entry fails npm start, the tests and the
 * bench as it would fail in AWS. In Lambda there is no endpoint, and IAM does it.
 */
const withGrants = (name: string, data: readonly TableAccess[], config: FunctionConfig): FunctionConfig =>
  config.dynamoDb.endpoint === undefined
    ? config
    : { ...config, dynamoDb: { ...config.dynamoDb, grants: { name, data, tables: config.tables } } };

export const defineRoot = <H>({ name, data, build, entry }: RootOptions<H>): FunctionRoot<H> => ({
  name,
  data,
  tables: tablesOf(data),
  entry: entry ?? entryFile(name),
  build: (config) => build(withGrants(name, data, config)),
});

/** An operation's root: its contract, the DynamoDB calls of its adapters, and how to build its handler. */
export const defineOperationRoot = <const O extends Operation>(
  operation: O,
  options: Omit<RootOptions<ProxyHandler>, 'name'>,
): OperationRoot<O> => ({ operation, ...defineRoot({ name: operation.operationId, ...options }) });

/** The handler, configured from the environment Lambda gives the function (fails fast on a gap). */
export const fromEnvironment = <H>(root: FunctionRoot<H>): H => root.build(readFunctionConfig(root.tables));
