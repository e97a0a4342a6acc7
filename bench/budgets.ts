import type { BundlePair } from './bundles';
import type { CapacityRow } from './capacity';
import type { ColdStartRow } from './cold-start';
import type { WarmRow } from './warm';

/** The budgets: each a ratio to a baseline measured in the same run. */
export const LIMITS = {
  coldStart: 1.3,
  bundle: 1.5,
  warmP50: 1.1,
  listCapacityGrowth: 1.05,
} as const;

export interface BudgetResult {
  readonly budget: string;
  readonly subject: string;
  /** What is divided by what, in words, with the two numbers. */
  readonly measured: string;
  readonly ratio: number;
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
    ratio,
    limit,
    pass: ratio <= limit,
  };
};

const ms = (value: number) => `${value.toFixed(1)} ms`;
const kb = (value: number) => `${(value / 1024).toFixed(0)} KiB`;
const units = (value: number) => `${value} CU`;

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
  return results;
};
