import type { BundlePair } from './bundles';
import type { CapacityRow } from './capacity';
import type { ColdStartRow } from './cold-start';
import type { WarmRow } from './warm';

/** The budgets: each a ratio to a reference measured in the same run, but one difference. */
export const LIMITS = {
  coldStart: 1.3,
  bundle: 1.5,
  warmP50: 1.1,
  listCapacityGrowth: 1.05,
  /** A page deep into a walk against the walk's first page. */
  laterPageCapacity: 1.05,
  /** Write units an Idempotency-Key adds to a create (its record: put, then completed). */
  idempotencyExtraWriteUnits: 2,
} as const;

export interface BudgetResult {
  readonly budget: string;
  readonly subject: string;
  /** What is compared with what, in words, with the two numbers. */
  readonly measured: string;
  /** `ratio`: measured ÷ reference; `extra`: measured − reference, in capacity units. */
  readonly kind: 'ratio' | 'extra';
  /** The ratio or the difference, held to `limit`. */
  readonly value: number;
  readonly limit: number;
  readonly pass: boolean;
}

const check = (
  budget: string,
  subject: string,
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
    value: ratio,
    limit,
    pass: ratio <= limit,
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
  value: value - reference,
  limit,
  pass: value - reference <= limit,
});

const ms = (value: number) => `${value.toFixed(1)} ms`;
const kb = (value: number) => `${(value / 1024).toFixed(0)} KiB`;
function units(value: number): string {
  return `${Number(value.toFixed(2))} CU`;
}

export const evaluateBudgets = ({
  bundles,
  coldStarts,
  warm,
  capacity,
}: {
  bundles: readonly BundlePair[];
  coldStarts: readonly ColdStartRow[];
  warm: readonly WarmRow[];
  capacity: readonly CapacityRow[];
}): BudgetResult[] => {
  const results: BudgetResult[] = [];
  for (const row of coldStarts) {
    results.push(
      check(
        'cold start (median)',
        row.name,
        row.service.total.p50,
        row.baseline.total.p50,
        LIMITS.coldStart,
        ms,
      ),
    );
  }
  for (const pair of bundles) {
    results.push(check('bundle size', pair.name, pair.service.bytes, pair.baseline.bytes, LIMITS.bundle, kb));
  }
  for (const row of warm) {
    results.push(
      check(
        'warm p50',
        row.name,
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
