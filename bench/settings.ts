/** How much of each measurement a run does: `full` for `npm run bench`, `quick` for the test. */
export type BenchMode = 'full' | 'quick';

export interface BenchSettings {
  readonly mode: BenchMode;
  /** Fresh processes per bundle (service and baseline each), after one discarded run. */
  readonly coldRuns: number;
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
  /** autocannon per operation: connections, and either a duration or a number of requests. */
  readonly e2e: { readonly connections: number; readonly warmupRequests: number } & (
    | { readonly durationSeconds: number }
    | { readonly amount: number }
  );
}

export const SETTINGS: Readonly<Record<BenchMode, BenchSettings>> = {
  full: {
    mode: 'full',
    coldRuns: 50,
    coldWithoutSourceMaps: true,
    warmIterations: 1_000,
    warmWarmup: 200,
    smallTable: 100,
    largeTable: 10_000,
    capacityRequests: 5,
    walkPage: 50,
    e2e: { connections: 8, warmupRequests: 200, durationSeconds: 8 },
  },
  // Enough to run every code path once or twice: keeps the harness from rotting, measures nothing.
  quick: {
    mode: 'quick',
    coldRuns: 1,
    coldWithoutSourceMaps: true,
    warmIterations: 20,
    warmWarmup: 5,
    smallTable: 30,
    largeTable: 300,
    capacityRequests: 2,
    walkPage: 5,
    e2e: { connections: 2, warmupRequests: 5, amount: 30 },
  },
};
