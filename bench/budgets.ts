import { STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import type { BundlePair } from './bundles';
import type { CapacityReport } from './capacity';
import type { EventLatency } from './event-latency';
import type { ColdStarts, OwnCodeRow, WarmRow } from './latency';
import type { PartitionLoad } from './partition-load';
import type { BenchMode } from './settings';
import type { BenchTarget } from './targets';

/** Every budget, a ratio to a reference measured in the same run, or units, calls, a share, a rate. */
export const LIMITS = {
  /**
   * Cold start against its baseline as a raw function is usually built and deployed (the
   * deployment's gain counts). The publisher's at most 0.9×, as the API's functions start.
   */
  coldStart: { read: 1.02, write: 1.1, authorizer: 1.02, publisher: 0.9 },
  /**
   * Each function's cold start in CPU time against its baseline built as the stack builds it, the
   * two side by side: what the project's own code costs (docs/decisions/0007-the-bench-budgets-say-what-is-true.md).
   * Each is halfway between the highest ratio its code measured over several runs and 1.1 times
   * the lowest: the same code passes, the function made 10% slower misses.
   */
  ownCode: {
    'list-pets': 1.24,
    'create-pet': 1.25,
    'create-pet-idempotent': 1.27,
    'get-pet': 1.22,
    'update-pet': 1.25,
    'delete-pet': 1.3,
    authorizer: 1.17,
    'publish-pet-events': 1.22,
  },
  /** Init (the import, Lambda's Init Duration) against the peer's: every function starts faster. */
  peer: 1,
  bundle: 1.5,
  /** Each function's warm invocations against its baseline's, the median of the ratios of calls in the same turn; set as `ownCode` is. */
  warmP50: {
    'list-pets': 1.16,
    'create-pet': 1.16,
    'get-pet': 1.14,
    'update-pet': 1.15,
    'delete-pet': 1.13,
    authorizer: 1.17,
    'publish-pet-events': 1.15,
  },
  /** The listing's first page at the large table against the small one, and any page of a walk against its first. */
  listPage: 1.05,
  /** Any page of a walk by status once every shard holds a page: one Query, two across shards (at 0.5 RCU at least each). */
  statusPageReadUnits: 1,
  /** Queries of a page by status, however few pets the status has: one per shard at most. */
  statusPageQueries: STATUS_SHARDS,
  /** The partition key with the most write units, when every create is `available`. */
  hottestKeyShare: 0.1,
  /** 1,000 WCU/s ÷ (hottest share × write units per create). */
  ceilingCreatesPerSecond: 10_000,
  /** Write units an Idempotency-Key adds to a create (its record: started, then completed). */
  idempotencyExtraWriteUnits: 2,
  /** From a write's answer to its event in events.ndjson, on npm start: the 2 s docs/asyncapi.yaml's readers are told. */
  eventP99Ms: 2_000,
} as const;

/** What a quick run prints instead of PASS or MISS for a budget it cannot support. */
export const NOT_JUDGED = 'not judged in quick mode';

export interface BudgetResult {
  readonly budget: string;
  readonly subject: string;
  /** The numbers compared, in words. */
  readonly measured: string;
  readonly unit: '×' | 'CU' | '+CU' | 'calls' | '%' | '/s' | 'ms';
  readonly value: number;
  readonly comparison: '<' | '≤' | '≥';
  readonly limit: number;
  /** `timing` needs many samples on a quiet machine: a quick run judges only `deterministic` budgets (bytes, units). */
  readonly basis: 'timing' | 'deterministic';
  readonly verdict: 'PASS' | 'MISS' | typeof NOT_JUDGED;
}

interface Measurements {
  readonly mode: BenchMode;
  readonly targets: readonly BenchTarget[];
  readonly bundles: readonly BundlePair[];
  readonly coldStarts: ColdStarts;
  readonly ownCode: readonly OwnCodeRow[];
  readonly warm: readonly WarmRow[];
  readonly capacity: CapacityReport;
  readonly partitionLoad: PartitionLoad;
  readonly eventLatency: EventLatency;
}

const PAIRED = '(median of paired ratios)';
export const OWN_CODE =
  'cold start against its baseline built the same way, in CPU time, side by side (median of paired ratios)';
const CEILING = 'projected ceiling of creates (1,000 WCU/s ÷ hottest share ÷ WCU a create)';
export const ms = (value: number, digits = 1) => `${value.toFixed(digits)} ms`;
export const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const cu = (value: number) => `${Number(value.toFixed(2))} CU`;

/** A function's own limit; none (a new function, before its first run sets one) misses. */
const limitOf = (limits: Readonly<Record<string, number>>, name: string): number =>
  limits[name] ?? Number.NaN;

export const evaluateBudgets = (run: Measurements): BudgetResult[] => {
  const results: BudgetResult[] = [];
  type Options = Partial<Pick<BudgetResult, 'comparison' | 'unit' | 'basis'>>;
  const judge = (
    budget: string,
    subject: string,
    measured: string,
    value: number,
    limit: number,
    options: Options = {},
  ) => {
    const { comparison = '≤', unit = '×', basis = 'deterministic' } = options;
    // Units are sums of halves and tenths: 4.2 − 2.2 must not read as more than 2.
    const rounded = unit === '×' ? value : Number(value.toFixed(2));
    const within =
      comparison === '<' ? rounded < limit : comparison === '≤' ? rounded <= limit : rounded >= limit;
    const verdict = basis === 'timing' && run.mode === 'quick' ? NOT_JUDGED : within ? 'PASS' : 'MISS';
    results.push({ budget, subject, measured, unit, value, comparison, limit, basis, verdict });
  };

  // The median of paired ratios: each pair runs back to back, so a machine-wide slowdown cancels out.
  const { peer } = run.coldStarts;
  const timing = { basis: 'timing' } as const;
  for (const row of run.coldStarts.rows) {
    const { name, service, baseline, ratioPerRound, peerRatioPerRound } = row;
    const target = run.targets.find((candidate) => candidate.name === name);
    const totals = `${ms(service.total.p50)} / ${ms(baseline.total.p50)}`;
    const inits = `${ms(service.load.p50)} / ${ms(peer.load.p50)}`;
    const limit = target ? LIMITS.coldStart[target.kind] : 0;
    judge(`cold start against its baseline ${PAIRED}`, name, totals, ratioPerRound.p50, limit, timing);
    const own = run.ownCode.find((candidate) => candidate.name === name);
    if (!own) throw new Error(`No cold starts of ${name} beside its baseline built the same way`);
    const { ratio } = own;
    const cpu = `${ms(own.service.p50)} / ${ms(own.sameBundling.p50)} of CPU; ±${ratio.halfWidth.toFixed(3)} in ${ratio.n} rounds`;
    judge(OWN_CODE, name, cpu, ratio.p50, limitOf(LIMITS.ownCode, name), timing);
    const peerBudget = `init against the peer's ${PAIRED}`;
    judge(peerBudget, name, inits, peerRatioPerRound.p50, LIMITS.peer, { ...timing, comparison: '<' });
  }
  // Like for like: the project's code is what a bundle carries beyond its baseline built the same way.
  for (const { name, service, sameBundling } of run.bundles) {
    const sizes = `${kib(service.bytes)} / ${kib(sameBundling.bytes)}`;
    const ratio = service.bytes / sameBundling.bytes;
    judge('bundle size (baseline built the same way)', name, sizes, ratio, LIMITS.bundle);
  }
  for (const { name, service, baseline, ratioPerCall } of run.warm) {
    const p50s = `${service.p50.toFixed(2)} ms / ${baseline.p50.toFixed(2)} ms; ±${ratioPerCall.halfWidth.toFixed(3)}`;
    judge(`warm p50 ${PAIRED}`, name, p50s, ratioPerCall.p50, limitOf(LIMITS.warmP50, name), timing);
  }

  const { listing, walks, rows } = run.capacity;
  const byStatus = `${listing} ?status=available`;
  const walkOf = (query: string, at: 'small' | 'large') => {
    const sizes = walks.map((walk) => walk.pets);
    const pets = at === 'small' ? Math.min(...sizes) : Math.max(...sizes);
    const found = walks.find((walk) => walk.query === query && walk.pets === pets);
    if (!found) throw new Error(`No walk ${query} at ${pets} pets`);
    return found;
  };
  for (const query of ['', '?status=available']) {
    const [small, large] = [walkOf(query, 'small'), walkOf(query, 'large')];
    const budget = `first page, ${large.pets} vs ${small.pets} pets`;
    const pages = `${cu(large.firstPage)} / ${cu(small.firstPage)}`;
    judge(budget, `${listing} ${query}`.trim(), pages, large.firstPage / small.firstPage, LIMITS.listPage);
  }
  const all = walkOf('', 'large');
  const deepest = `max ${cu(all.billedReadUnits.max)} / ${cu(all.firstPage)}`;
  const everyPage = `every page of a walk vs its first, ${all.pages} pages (${all.pets} pets)`;
  judge(everyPage, listing, deepest, all.billedReadUnits.max / all.firstPage, LIMITS.listPage);
  const [dense, sparse] = [walkOf('?status=available', 'large'), walkOf('?status=available', 'small')];
  const denseBudget = `RCU of every page of a walk by status, ${dense.pages} pages (${dense.pets} pets, a page in every shard)`;
  const denseUnits = `max ${cu(dense.billedReadUnits.max)}, mean ${cu(dense.billedReadUnits.mean)}`;
  judge(denseBudget, byStatus, denseUnits, dense.billedReadUnits.max, LIMITS.statusPageReadUnits, {
    unit: 'CU',
  });
  const sparseBudget = `Queries of a page by status, however few pets (${sparse.pets} pets, ${sparse.listed} of the status)`;
  const sparseCalls = `max ${sparse.calls.max}, mean ${Number(sparse.calls.mean.toFixed(2))}`;
  judge(sparseBudget, byStatus, sparseCalls, sparse.calls.max, LIMITS.statusPageQueries, { unit: 'calls' });

  const load = run.partitionLoad;
  const hottest = load.hottest[0];
  if (!hottest) throw new Error('The partition-load model recorded no write');
  const hot = `${hottest.key}: ${cu(hottest.writeUnits)} of ${cu(load.writeUnits)}`;
  const ceiling = `1,000 ÷ (${(hottest.share * 100).toFixed(2)}% × ${load.writeUnitsPerCreate.toFixed(2)} WCU)`;
  const share = `hottest partition key's share of write units (${load.creates} creates, all available)`;
  judge(share, load.subject, hot, hottest.share, LIMITS.hottestKeyShare, { unit: '%' });
  const rate = { unit: '/s', comparison: '≥' } as const;
  judge(CEILING, load.subject, ceiling, load.ceilingCreatesPerSecond, LIMITS.ceilingCreatesPerSecond, rate);
  const large = Math.max(...rows.map((row) => row.pets));
  const writeUnits = (name?: string) =>
    rows.findLast((row) => row.name === name && row.pets === large)?.service.writeUnits ?? Number.NaN;
  for (const { name, variantOf = '' } of run.targets.filter((target) => target.variantOf)) {
    const [sent, own] = [writeUnits(name), writeUnits(variantOf)];
    const budget = `extra write units of ${name} (${large} pets)`;
    const extra = `${cu(sent)} − ${cu(own)}`;
    judge(budget, variantOf, extra, sent - own, LIMITS.idempotencyExtraWriteUnits, { unit: '+CU' });
  }
  const { eventLatency } = run;
  const events = `p99 of ${eventLatency.writes} creates, from the answer to the event in events.ndjson (npm start)`;
  const eventTimes = `p50 ${ms(eventLatency.p50, 0)}, p99 ${ms(eventLatency.p99, 0)}`;
  judge(events, 'publish-pet-events', eventTimes, eventLatency.p99, LIMITS.eventP99Ms, {
    ...timing,
    unit: 'ms',
    comparison: '<',
  });
  return results;
};
