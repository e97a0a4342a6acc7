import { type TableAccess, type TableUse, tablesOf } from '#shared/adapters/dynamodb/access';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { type FunctionConfig, readFunctionConfig, type TableKey, tableName } from '#shared/config';
import type { FunctionDependencies } from '#shared/http/endpoint';
import type { ProxyHandler } from '#shared/lambda';
import { createLogger } from '#shared/observability/logger';
import type { Operation } from '#shared/operations/operation';

/** The tables a function uses, by the names its handler knows them by. */
export type Uses = Readonly<Record<string, TableUse<unknown>>>;

/** Each use opened: the table's adapter, typed as the methods the function allows itself. */
export type Opened<U extends Uses> = { readonly [K in keyof U]: U[K] extends TableUse<infer T> ? T : never };

/** What a function's handler is built from: its tables, its logger and the stage's CORS origins. */
export type Dependencies<U extends Uses> = Opened<U> & FunctionDependencies;

/**
 * A Lambda function of the service: its name, the tables it uses (`uses`, whose declaration is
 * all the stack grants and all its client may call), and its handler, built once, at cold start,
 * from them. Nothing runs at import: the generated Lambda entry calls `fromEnvironment`; the local
 * server, the bench and the tests call `build` with a configuration of their own, or `handler`
 * with stand-ins.
 */
export interface LambdaFunction<H = unknown, U extends Uses = Uses> {
  /** An operation's `operationId`, or `authorizer`; its module is `functions/<kebab-case name>.ts`. */
  readonly name: string;
  readonly uses: U;
  /** The DynamoDB calls of its uses: the grants of its role. */
  readonly data: readonly TableAccess[];
  /** Their variables are required at cold start. */
  readonly tables: readonly TableKey[];
  /**
   * Given stand-ins, a test builds the handler without DynamoDB, and without a configuration its
   * defaults (no metrics). (A method, so that a list holds functions of any uses.)
   */
  handler(dependencies: Dependencies<U>, config?: FunctionConfig): H;
  readonly build: (config: FunctionConfig) => H;
}

/** An operation's function: the unit `OPERATIONS` lists (functions/operations.ts). */
export interface OperationFunction<O extends Operation = Operation, U extends Uses = Uses>
  extends LambdaFunction<ProxyHandler, U> {
  readonly operation: O;
}

/** A function's name in kebab case (`createPet` → `create-pet`): its module's, its entry's and the bench's. */
export const kebabName = (name: string): string =>
  name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** `functions/<kebab-case name>.ts`: the module of a function, by convention. */
export const moduleOf = (name: string): string => `functions/${kebabName(name)}.ts`;

/**
 * The configuration a function is built with. Outside AWS (an endpoint: DynamoDB Local, which has
 * no IAM in front of it) it carries the function's grants, so its client refuses, as IAM would,
 * any call its uses do not declare. In Lambda there is no endpoint, and IAM does it.
 */
const withGrants = (name: string, data: readonly TableAccess[], config: FunctionConfig): FunctionConfig =>
  config.dynamoDb.endpoint === undefined
    ? config
    : { ...config, dynamoDb: { ...config.dynamoDb, grants: { name, data, tables: config.tables } } };

/** Every use opened on one client, so every call of a request keeps the same deadline. */
const open = <U extends Uses>(uses: U, config: FunctionConfig): Opened<U> => {
  const client = createDocumentClient(config.dynamoDb);
  return Object.fromEntries(
    Object.entries(uses).map(([key, use]) => [key, use.open(client, tableName(config, use.table))]),
  ) as Opened<U>;
};

export interface FunctionOptions<H, U extends Uses> {
  readonly name: string;
  readonly uses: U;
  readonly handler: (dependencies: Dependencies<U>, config?: FunctionConfig) => H;
}

export const defineFunction = <H, const U extends Uses>({
  name,
  uses,
  handler,
}: FunctionOptions<H, U>): LambdaFunction<H, U> => {
  const data = Object.values(uses).flatMap((use) => use.data);
  return {
    name,
    uses,
    data,
    tables: tablesOf(data),
    handler,
    build: (given) => {
      const config = withGrants(name, data, given);
      const dependencies = { ...open(uses, config), logger: createLogger(config) };
      return handler(
        (config.corsOrigins
          ? { ...dependencies, corsOrigins: config.corsOrigins }
          : dependencies) as Dependencies<U>,
        config,
      );
    },
  };
};

/** An operation's function: its contract, the tables it uses, and its handler. */
export const operationFunction = <const O extends Operation, const U extends Uses>(
  operation: O,
  options: Omit<FunctionOptions<ProxyHandler, U>, 'name'>,
): OperationFunction<O, U> => ({ operation, ...defineFunction({ name: operation.operationId, ...options }) });

/** The handler, configured from the environment Lambda gives the function (fails fast on a gap). */
export const fromEnvironment = <H>(fn: Pick<LambdaFunction<H>, 'build' | 'tables'>): H =>
  fn.build(readFunctionConfig(fn.tables));
