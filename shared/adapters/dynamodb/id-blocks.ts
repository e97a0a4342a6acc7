/**
 * The sizes of the blocks of ids the id sequence leases (dynamodb-id-sequence.ts). Apart, and
 * free of imports, so the benchmark's baseline can lease blocks the same way.
 */

/**
 * How big a block of ids one lease takes. A block should last about `targetLeaseIntervalMs` at
 * the rate the previous block was used: an idle instance leases `min` ids (a block it never uses
 * up is a gap when the instance goes away), a busy one doubles its block per lease up to `max`.
 * An instance leases at most once every 10 s while it makes fewer than 100 creates a second, and
 * once per 1,000 creates above: the counter item takes 0.1 writes a second per busy instance plus
 * one per 1,000 creates (60 a second for 10,000 creates a second over 500 instances), far below
 * the 1,000 writes a second one item can take.
 */
export const ID_BLOCKS = { min: 10, max: 1_000, targetLeaseIntervalMs: 10_000 } as const;

export interface BlockSizing {
  /** Ids of the block just used up; none for the first lease of an instance. */
  readonly previous?: number;
  /** Milliseconds from the lease of that block to now. */
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
