import { authorizerRoot } from '#functions/authorizer/root';
import { OPERATIONS } from '#functions/operations';
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

/** The bench's name of a function: its folder in functions/ (`functions/list-pets/lambda.ts` → `list-pets`). */
const folderOf = (entry: string): string => entry.split('/').at(-2) ?? entry;

/** Functions the bench also sends another event: their own bundle, another baseline. */
const VARIANTS: readonly { readonly name: BenchFunction; readonly of: BenchFunction }[] = [
  // createPet sent an Idempotency-Key: its baseline makes the record's writes too.
  { name: 'create-pet-idempotent', of: 'create-pet' },
];

/**
 * Every Lambda function of the stack, in report order: each operation of OPERATIONS, the
 * variants, then the authorizer.
 */
export const TARGETS: readonly BenchTarget[] = [
  ...OPERATIONS.map((root) => target(folderOf(root.entry) as BenchFunction, root)),
  ...VARIANTS.map(({ name, of }) => {
    const root = OPERATIONS.find((candidate) => folderOf(candidate.entry) === of);
    if (!root) throw new Error(`No operation ${of} for the bench variant ${name}`);
    return { ...target(name, root), variantOf: of };
  }),
  target('authorizer', authorizerRoot),
];

export const targetOf = (name: BenchFunction): BenchTarget => {
  const found = TARGETS.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`No bench target ${name}`);
  return found;
};
