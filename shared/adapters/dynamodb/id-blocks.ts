/**
 * Block sizing (free of imports for the benchmark): a block lasts about `targetLeaseIntervalMs`, idle leases
 * `min`, busy doubles up to `max`, so the counter item stays far below its 1,000 writes/s.
 */
export const ID_BLOCKS = { min: 10, max: 1_000, targetLeaseIntervalMs: 10_000 } as const;

export interface BlockSizing {
  /** Ids of the block just used up, and ms since its lease; none for an instance's first lease. */
  readonly previous?: number;
  readonly elapsedMs?: number;
  /** Callers waiting for an id right now: a burst gets a block big enough for all of them. */
  readonly waiting: number;
}

/** The size of the next block: the rate-based size, at most twice the previous, at least the waiting callers. */
export const nextBlockSize = ({ previous, elapsedMs, waiting }: BlockSizing): number => {
  const paced =
    previous === undefined
      ? ID_BLOCKS.min
      : Math.min(
          2 * previous,
          Math.ceil((previous * ID_BLOCKS.targetLeaseIntervalMs) / Math.max(1, elapsedMs ?? 0)),
        );
  return Math.min(ID_BLOCKS.max, Math.max(ID_BLOCKS.min, paced, waiting));
};
