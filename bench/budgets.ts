import type { BundlePair } from './bundles';
import type { CapacityRow } from './capacity';
import type { ColdStartRow } from './cold-start';
import type { BenchFunction } from './lambda-events';
import type { BenchMode } from './settings';
import type { WarmRow } from './warm';

/** The budgets: each a ratio to a reference measured in the same run, but one difference. */
export const LIMITS = {
  /**
   * Cold start (median) per function, on the Lambda's Node major. createPet carries code the
   * others do not need: the idempotent create, its store and the schemas its records are read with.
   */
  coldStart: {
    'list-pets': 1.2,
    'create-pet': 1.3,
    'create-pet-idempotent': 1.3,
    'get-pet': 1.2,
    authorizer: 1.2,
  } satisfies Record<BenchFunction, number>,
  bundle: 1.5,
  warmP50: 1.1,
  listCapacityGrowth: 1.05,
  /** A page deep into a walk against the walk's first page. */
  laterPageCapacity: 1.05,
  /** Write units an Idempotency-Key adds to a create (its record: started, then completed). */
  idempotencyExtraWriteUnits: 2,
} as const;

/** What a quick run prints instead of PASS or MISS for a budget it cannot support. */
export const NOT_JUDGED = 'not judged in quick mode';

export type Verdict = 'PASS' | 'MISS' | typeof NOT_JUDGED;

/**
 * What a budget rests on. `timing`: durations, which need many samples on a quiet machine (a
 * quick run has one cold start per bundle and two warm calls, on a machine running the tests).
 * `deterministic`: bytes esbuild writes and capacity units DynamoDB reports, the same in every run
 * of the same code, so a quick run judges them too (at its own, smaller, table sizes).
 */
export type BudgetBasis = 'timing' | 'deterministic';

export interface BudgetResult {
  readonly budget: string;
  readonly subject: string;
  /** What is compared with what, in words, with the two numbers. */
  readonly measured: string;
  /** `ratio`: measured ÷ reference; `extra`: measured − reference, in capacity units. */
  readonly kind: 'ratio' | 'extra';
  readonly basis: BudgetBasis;
  /** The ratio or the difference, held to `limit`. */
  readonly value: number;
  readonly limit: number;
  readonly verdict: Verdict;
}

const verdict = (within: boolean, basis: BudgetBasis, mode: BenchMode): Verdict => {
  if (basis === 'timing' && mode === 'quick') return NOT_JUDGED;
  return within ? 'PASS' : 'MISS';
};

export const evaluateBudgets = ({
  mode,
  bundles,
  coldStarts,
  warm,
  capacity,
}: {
  mode: BenchMode;
  bundles: readonly BundlePair[];
  coldStarts: readonly ColdStartRow[];
  warm: readonly WarmRow[];
  capacity: readonly CapacityRow[];
}): BudgetResult[] => {
  const check = (
    budget: string,
    subject: string,
    basis: BudgetBasis,
    value: number,
    reference: number,
    limit: number,
    format: (value: number) => string,
  ): BudgetResult => {
    const ratio = value / reference;
    return {
      budget,
      subject,
      measured: `${format(value)} / ${format(reference)}`,
      kind: 'ratio',
      basis,
      value: ratio,
      limit,
      verdict: verdict(ratio <= limit, basis, mode),
    };
  };
  const extra = (
    budget: string,
    subject: string,
    value: number,
    reference: number,
    limit: number,
  ): BudgetResult => ({
    budget,
    subject,
    measured: `${units(value)} − ${units(reference)}`,
    kind: 'extra',
    basis: 'deterministic',
    value: value - reference,
    limit,
    verdict: verdict(value - reference <= limit, 'deterministic', mode),
  });

  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const kb = (value: number) => `${(value / 1024).toFixed(0)} KiB`;
  function units(value: number): string {
    return `${Number(value.toFixed(2))} CU`;
  }

  const results: BudgetResult[] = [];
  // Cold starts are judged on the median of the paired ratios: each round times the service and
  // its baseline one after the other, so a slowdown of the whole machine (noisy neighbours move
  // both medians by up to 30 ms between runs) falls on both sides of a pair and cancels out. The
  // ratio of the two medians pairs nothing, and is printed beside it in the cold-start table.
  for (const row of coldStarts) {
    const ratio = row.ratioPerRound.p50;
    const limit = LIMITS.coldStart[row.name];
    results.push({
      budget: 'cold start (median of paired ratios)',
      subject: row.name,
      measured: `${ms(row.service.total.p50)} / ${ms(row.baseline.total.p50)}`,
      kind: 'ratio',
      basis: 'timing',
      value: ratio,
      limit,
      verdict: verdict(ratio <= limit, 'timing', mode),
    });
  }
  for (const pair of bundles) {
    results.push(
      check(
        'bundle size',
        pair.name,
        'deterministic',
        pair.service.bytes,
        pair.baseline.bytes,
        LIMITS.bundle,
        kb,
      ),
    );
  }
  for (const row of warm) {
    results.push(
      check(
        'warm p50',
        row.name,
        'timing',
        row.service.p50,
        row.baseline.p50,
        LIMITS.warmP50,
        (v) => `${v.toFixed(2)} ms`,
      ),
    );
  }
  const pets = [...new Set(capacity.map((row) => row.pets))].sort((a, b) => a - b);
  const [small, large] = [pets[0], pets[pets.length - 1]];
  for (const operation of ['list', 'list ?status=available'] as const) {
    const at = (count: number | undefined) => {
      const row = capacity.find((candidate) => candidate.operation === operation && candidate.pets === count);
      if (!row) throw new Error(`No capacity row for ${operation} at ${count} pets`);
      return row.service.readUnits + row.service.writeUnits;
    };
    results.push(
      check(
        `list capacity, ${large} vs ${small} pets`,
        operation === 'list' ? 'list-pets' : 'list-pets ?status=',
        'deterministic',
        at(large),
        at(small),
        LIMITS.listCapacityGrowth,
        units,
      ),
    );
  }
  const total = (cost: { readUnits: number; writeUnits: number }) => cost.readUnits + cost.writeUnits;
  const row = (operation: string, count?: number) => {
    const found = capacity.find(
      (candidate) => candidate.operation === operation && (count === undefined || candidate.pets === count),
    );
    if (!found)
      throw new Error(`No capacity row for ${operation}${count === undefined ? '' : ` at ${count} pets`}`);
    return found;
  };
  for (const walk of ['list', 'list ?status=available'] as const) {
    const later = capacity.find(
      (candidate) =>
        candidate.operation.startsWith(`${walk}, page `) && candidate.operation !== `${walk}, page 1`,
    );
    if (!later) throw new Error(`No later page of the ${walk} walk`);
    results.push(
      check(
        `later page capacity, ${later.operation.slice(walk.length + 2)} vs page 1 (${later.pets} pets)`,
        walk === 'list' ? 'list-pets' : 'list-pets ?status=',
        'deterministic',
        total(later.service),
        total(row(`${walk}, page 1`).service),
        LIMITS.laterPageCapacity,
        units,
      ),
    );
  }
  results.push(
    extra(
      `extra write units of an Idempotency-Key (${large} pets)`,
      'create-pet',
      row('create (Idempotency-Key)', large).service.writeUnits,
      row('create', large).service.writeUnits,
      LIMITS.idempotencyExtraWriteUnits,
    ),
  );
  return results;
};
