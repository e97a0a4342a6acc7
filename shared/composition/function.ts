import { type TableAccess, type TableUse, tablesOf } from '#shared/adapters/dynamodb/access';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { type FunctionConfig, type TableKey, tableName } from '#shared/config';
import type { FunctionDependencies } from '#shared/http/endpoint';
import type { ProxyHandler } from '#shared/lambda';
import { createLogger } from '#shared/observability/logger';
import type { Operation } from '#shared/operations/operation';

export type Uses = Readonly<Record<string, TableUse<unknown>>>;

export type Opened<U extends Uses> = { readonly [K in keyof U]: U[K] extends TableUse<infer T> ? T : never };

export type Dependencies<U extends Uses> = Opened<U> & FunctionDependencies;

/** A Lambda function: its name, tables (its grants) and handler, built at cold start, never at import. */
export interface LambdaFunction<H = unknown, U extends Uses = Uses> {
  /** An operation's `operationId`, or `authorizer`; its module is `functions/<kebab-case name>.ts`. */
  readonly name: string;
  readonly uses: U;
  readonly data: readonly TableAccess[];
  readonly tables: readonly TableKey[];
  /** The handler from stand-ins (without a configuration, no metrics); a method, so a list holds any uses. */
  handler(dependencies: Dependencies<U>, config?: FunctionConfig): H;
  readonly build: (config: FunctionConfig) => H;
}

export interface OperationFunction<O extends Operation = Operation, U extends Uses = Uses>
  extends LambdaFunction<ProxyHandler, U> {
  readonly operation: O;
}

/** A function's name in kebab case (`createPet` → `create-pet`): its module's, its entry's and the bench's. */
export const kebabName = (name: string): string =>
  name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

export const moduleOf = (name: string): string => `functions/${kebabName(name)}.ts`;

/** Outside AWS (an endpoint: DynamoDB Local, without IAM) the client is given the function's grants. */
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

export const operationFunction = <const O extends Operation, const U extends Uses>(
  operation: O,
  options: Omit<FunctionOptions<ProxyHandler, U>, 'name'>,
): OperationFunction<O, U> => ({ operation, ...defineFunction({ name: operation.operationId, ...options }) });
