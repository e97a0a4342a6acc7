import { STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import type { BundlePair } from './bundles';
import type { CapacityRow, WalkCost } from './capacity';
import type { ColdStartRow } from './cold-start';
import type { BenchFunction } from './lambda-events';
import type { PartitionLoad } from './partition-load';
import type { BenchMode } from './settings';
import type { WarmRow } from './warm';

/** The budgets: each a ratio to a reference measured in the same run, but one difference. */
export const LIMITS = {
  /**
   * Cold start (median of paired ratios) per function, on the Lambda's Node major. The reads carry
   * validation, structured logs, metrics and middy; the authorizer only the logger and middy's
   * core; createPet also the idempotent create, its store and the schemas its records are read with.
   */
  coldStart: {
    'list-pets': 1.12,
    'create-pet': 1.2,
    'create-pet-idempotent': 1.2,
    'get-pet': 1.12,
    authorizer: 1.08,
  } satisfies Record<BenchFunction, number>,
  bundle: 1.5,
  warmP50: 1.1,
  listCapacityGrowth: 1.05,
  /** A page deep into a walk of the unfiltered listing against the walk's first page. */
  laterPageCapacity: 1.05,
  /**
   * Read units of any page of a walk by status whose every shard holds a page of pets: one Query,
   * or two where the page crosses into the next shard. Each call counted at 0.5 RCU at least, as
   * DynamoDB bills it.
   */
  statusPageReadUnits: 1,
  /** Queries of one page by status, however few pets the status has: one per shard at most. */
  statusPageQueries: STATUS_SHARDS,
  /** The partition key with the most write units, when every create is `available`. */
  hottestKeyShare: 0.1,
  /** 1,000 WCU/s ÷ (hottest share × write units per create). */
  ceilingCreatesPerSecond: 10_000,
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
  /**
   * `ratio`: measured ÷ reference; `extra`: measured − reference, in capacity units; `units`,
   * `calls`, `share`: an absolute ceiling; `minimum`: an absolute floor.
   */
  readonly kind: 'ratio' | 'extra' | 'units' | 'calls' | 'share' | 'minimum';
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
  walks,
  partitionLoad,
}: {
  mode: BenchMode;
  bundles: readonly BundlePair[];
  coldStarts: readonly ColdStartRow[];
  warm: readonly WarmRow[];
  capacity: readonly CapacityRow[];
  walks: readonly WalkCost[];
  partitionLoad: PartitionLoad;
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
  /** An absolute bound, deterministic: a ceiling, or a floor for `minimum`. */
  const bound = (
    budget: string,
    subject: string,
    kind: 'units' | 'calls' | 'share' | 'minimum',
    value: number,
    limit: number,
    measured: string,
  ): BudgetResult => ({
    budget,
    subject,
    measured,
    kind,
    basis: 'deterministic',
    value,
    limit,
    verdict: verdict(kind === 'minimum' ? value >= limit : value <= limit, 'deterministic', mode),
  });
  for (const walk of ['list'] as const) {
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
  const sharded = walks.filter((walk) => walk.design === 'shard after shard (in use)');
  const dense = sharded.find((walk) => walk.pets === large);
  const sparse = sharded.find((walk) => walk.pets === small);
  if (!dense || !sparse) throw new Error('No walk by status at both table sizes');
  results.push(
    bound(
      `RCU of every page of a walk by status, ${dense.pages} pages (${large} pets, a page in every shard)`,
      'list-pets ?status=',
      'units',
      dense.perPage.billedReadUnits.max,
      LIMITS.statusPageReadUnits,
      `max ${units(dense.perPage.billedReadUnits.max)}, mean ${units(dense.perPage.billedReadUnits.mean)}`,
    ),
    bound(
      `Queries of a page by status, however few pets (${small} pets, ${sparse.statusPets} of the status)`,
      'list-pets ?status=',
      'calls',
      sparse.perPage.calls.max,
      LIMITS.statusPageQueries,
      `max ${sparse.perPage.calls.max}, mean ${Number(sparse.perPage.calls.mean.toFixed(2))}`,
    ),
  );
  const hottest = partitionLoad.hottest[0];
  if (!hottest) throw new Error('The partition-load model recorded no write');
  results.push(
    bound(
      `hottest partition key's share of write units (${partitionLoad.creates} creates, all available)`,
      'create-pet',
      'share',
      hottest.share,
      LIMITS.hottestKeyShare,
      `${hottest.key}: ${units(hottest.writeUnits)} of ${units(partitionLoad.writeUnits)}`,
    ),
    bound(
      'projected ceiling of creates (1,000 WCU/s ÷ hottest share ÷ WCU a create)',
      'create-pet',
      'minimum',
      partitionLoad.ceilingCreatesPerSecond,
      LIMITS.ceilingCreatesPerSecond,
      `1,000 ÷ (${(hottest.share * 100).toFixed(2)}% × ${partitionLoad.writeUnitsPerCreate.toFixed(2)} WCU)`,
    ),
  );
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
