/** How much of each measurement a run does: `full` for `npm run bench`, `quick` for the test. */
export type BenchMode = 'full' | 'quick';

export interface BenchSettings {
  readonly mode: BenchMode;
  /** Fresh processes per bundle (service and baseline each). */
  readonly coldRuns: number;
  /** Run one round of cold starts first and discard it (file cache, DynamoDB Local's first calls). */
  readonly coldWarmupRound: boolean;
  /** Also time the service bundles without `--enable-source-maps`, to price that option. */
  readonly coldWithoutSourceMaps: boolean;
  /** Warm invocations measured per handler (service and baseline each), after `warmWarmup`. */
  readonly warmIterations: number;
  readonly warmWarmup: number;
  /** Pets in the latency tables, and the small table of the capacity measurement. */
  readonly smallTable: number;
  /** The large table of the capacity measurement. */
  readonly largeTable: number;
  /** Requests per capacity row; the cost per request is their mean. */
  readonly capacityRequests: number;
  /** The page of a 20-a-page walk over the large table whose cost is compared with the first's. */
  readonly walkPage: number;
  /**
   * The partition-load model: function instances creating side by side, and creates each, all
   * `available` (bench/partition-load.ts).
   */
  readonly partitionLoad: { readonly instances: number; readonly createsPerInstance: number };
  /**
   * autocannon per operation: connections, warm-up requests (none: no warm-up run), and either a
   * duration or a number of requests.
   */
  readonly e2e: { readonly connections: number; readonly warmupRequests: number } & (
    | { readonly durationSeconds: number }
    | { readonly amount: number }
  );
  /**
   * Cold-start and warm children at a time, and whether the independent measurements (cold and
   * warm; capacity; end to end) overlap. Only for a run that judges no timing: 1 and `false`
   * otherwise, so that no measurement disturbs another.
   */
  readonly childConcurrency: number;
  readonly overlap: boolean;
}

export const SETTINGS: Readonly<Record<BenchMode, BenchSettings>> = {
  full: {
    mode: 'full',
    coldRuns: 50,
    coldWarmupRound: true,
    coldWithoutSourceMaps: true,
    warmIterations: 1_000,
    warmWarmup: 200,
    smallTable: 100,
    largeTable: 10_000,
    capacityRequests: 5,
    walkPage: 50,
    partitionLoad: { instances: 4, createsPerInstance: 1_000 },
    e2e: { connections: 8, warmupRequests: 200, durationSeconds: 8 },
    childConcurrency: 1,
    overlap: false,
  },
  /**
   * Every code path once, as cheaply as that goes (it runs in `npm test`): one cold start of each
   * bundle and variant with no discarded round, two warm invocations each (both orders) after one
   * of warm-up, a small table and a large one just big enough that each of the 16 shards of the
   * status index holds a page of `available` pets (statuses take turns, so 1,100 pets hold 366
   * available ones, 22 or 23 a shard), one request per capacity row, 400 creates for the
   * partition-load model, ten requests end to end; children four at a time and the measurements
   * side by side. It measures nothing worth reading: its timing budgets are not judged.
   */
  quick: {
    mode: 'quick',
    coldRuns: 1,
    coldWarmupRound: false,
    coldWithoutSourceMaps: true,
    warmIterations: 2,
    warmWarmup: 1,
    smallTable: 25,
    largeTable: 1_100,
    capacityRequests: 1,
    walkPage: 2,
    partitionLoad: { instances: 4, createsPerInstance: 100 },
    e2e: { connections: 1, warmupRequests: 0, amount: 10 },
    childConcurrency: 4,
    overlap: true,
  },
};
