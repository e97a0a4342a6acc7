import { authorizerRoot } from '#functions/authorizer/root';
import { OPERATIONS, type OperationId } from '#functions/operations';
import { type TableAccess, tablesOf } from '#shared/adapters/dynamodb/access';
import type { TableKey } from '#shared/config';
import type { BenchFunction } from './lambda-events';

/** A function of the stack and the baseline it is measured against. */
export interface BenchTarget {
  readonly name: BenchFunction;
  /** Entry file of the function, relative to the project root (from its composition root). */
  readonly entry: string;
  /** The tables it uses: the stack sets exactly their variables, and so does the benchmark. */
  readonly tables: readonly TableKey[];
  /** Entry file of its baseline (bench/baselines): the same DynamoDB calls, same client, nothing else. */
  readonly baseline: string;
  /**
   * The function this target sends another event (its own bundle, another baseline): measured
   * cold and for capacity only. Warm, and without source maps, it would repeat that function's rows.
   */
  readonly variantOf?: BenchFunction;
}

const target = (
  name: BenchFunction,
  described: { readonly entry: string; readonly data: readonly TableAccess[] },
): BenchTarget => ({
  name,
  entry: described.entry,
  tables: tablesOf(described.data),
  baseline: `bench/baselines/entries/${name}.ts`,
});

const operation = (
  name: BenchFunction,
  operationId: OperationId,
  variant?: { readonly of: BenchFunction; readonly baseline: BenchFunction },
): BenchTarget => {
  const root = OPERATIONS.find((candidate) => candidate.operation.operationId === operationId);
  if (!root) throw new Error(`No operation ${operationId}`);
  const built = target(name, root);
  return variant
    ? { ...built, baseline: `bench/baselines/entries/${variant.baseline}.ts`, variantOf: variant.of }
    : built;
};

/** Every Lambda function of the stack, in report order. */
export const TARGETS: readonly BenchTarget[] = [
  operation('list-pets', 'listPets'),
  operation('create-pet', 'createPet'),
  // The same function and bundle, sent an Idempotency-Key: its baseline makes the record's writes too.
  operation('create-pet-idempotent', 'createPet', { of: 'create-pet', baseline: 'create-pet-idempotent' }),
  operation('get-pet', 'getPet'),
  target('authorizer', authorizerRoot),
];

export const targetOf = (name: BenchFunction): BenchTarget => {
  const found = TARGETS.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`No bench target ${name}`);
  return found;
};
