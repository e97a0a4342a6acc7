import { type TableAccess, tablesOf } from '#shared/adapters/dynamodb/access';
import type { TableKey } from '#shared/adapters/dynamodb/table-design';
import { type FunctionConfig, readFunctionConfig } from '#shared/config';

/**
 * A function's composition root: configuration in, a Lambda handler out, with exactly the
 * adapters its descriptor says it calls. Nothing runs at import: each entry in functions/ calls
 * `fromEnvironment` once, at cold start; the local server and the tests call `build` with a
 * configuration of their own.
 */
export interface FunctionRoot<H> {
  /** The tables the function reads or writes: their variables are required. */
  readonly tables: readonly TableKey[];
  readonly build: (config: FunctionConfig) => H;
}

export const defineRoot = <H>(
  data: readonly TableAccess[],
  build: (config: FunctionConfig) => H,
): FunctionRoot<H> => ({ tables: tablesOf(data), build });

/** The handler, configured from the environment Lambda gives the function (fails fast on a gap). */
export const fromEnvironment = <H>(root: FunctionRoot<H>): H => root.build(readFunctionConfig(root.tables));
