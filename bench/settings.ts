/** How much of each measurement a run does: `full` for `npm run bench`, `quick` for the test. */
export const SETTINGS = {
  full: {
    mode: 'full',
    /** Rounds of cold starts (each function, baseline, the peer and the map's line once a round). */
    coldRuns: 50,
    /** One round first, discarded (file cache, DynamoDB Local's first calls). */
    coldWarmupRound: true,
    /**
     * Rounds of each function beside its baseline built the same way (CPU time): at least
     * `minRounds`, then more for a function whose median ratio is not yet known to ± `precision`.
     */
    ownCode: { minRounds: 40, maxRounds: 200, precision: 0.025 },
    warmIterations: 1_000,
    warmWarmup: 200,
    /** Also the small table of the capacity measurement. */
    smallTable: 100,
    largeTable: 10_000,
    capacityRequests: 5,
    /** Function instances creating side by side, and creates each, all `available`. */
    partitionLoad: { instances: 4, createsPerInstance: 1_000 },
    /** Creates timed from their answer to their event. */
    eventWrites: 200,
    /** Children at a time, and latency beside capacity: only for a run that judges no timing. */
    childConcurrency: 1,
    overlap: false,
  },
  /** Every path once (`npm test`); each of 16 status shards holds a page (366 of 1,100 `available`). */
  quick: {
    mode: 'quick',
    coldRuns: 1,
    coldWarmupRound: false,
    ownCode: { minRounds: 1, maxRounds: 1, precision: Number.POSITIVE_INFINITY },
    warmIterations: 2,
    warmWarmup: 1,
    smallTable: 25,
    largeTable: 1_100,
    capacityRequests: 1,
    partitionLoad: { instances: 4, createsPerInstance: 100 },
    eventWrites: 3,
    childConcurrency: 4,
    overlap: true,
  },
} as const;

export type BenchMode = keyof typeof SETTINGS;
export type BenchSettings = (typeof SETTINGS)[BenchMode];
