import { describe, expect, it } from 'vitest';
import { ID_BLOCKS, nextBlockSize } from '#shared/adapters/dynamodb/id-blocks';

describe('the size of the next block of ids', () => {
  it('starts small: the first lease of an instance takes 10 ids', () => {
    expect(nextBlockSize({ waiting: 1 })).toBe(10);
  });

  it('takes enough for every caller waiting in a burst, up to 1,000', () => {
    expect(nextBlockSize({ waiting: 290 })).toBe(290);
    expect(nextBlockSize({ previous: 10, elapsedMs: 1, waiting: 5_000 })).toBe(ID_BLOCKS.max);
  });

  it('aims at a lease every 10 s at the rate the last block was used, growing at most twofold a lease', () => {
    // 100 ids in 2 s: 50 a second, 500 for the next 10 s, but no more than twice the last block.
    expect(nextBlockSize({ previous: 100, elapsedMs: 2_000, waiting: 1 })).toBe(200);
    // 400 ids in 10 s: 40 a second, 400 for the next 10 s.
    expect(nextBlockSize({ previous: 400, elapsedMs: 10_000, waiting: 1 })).toBe(400);
    expect(nextBlockSize({ previous: 1_000, elapsedMs: 100, waiting: 1 })).toBe(ID_BLOCKS.max);
  });

  it('shrinks back to 10 ids for an instance that was idle', () => {
    expect(nextBlockSize({ previous: 1_000, elapsedMs: 3_600_000, waiting: 1 })).toBe(ID_BLOCKS.min);
    expect(nextBlockSize({ previous: 200, elapsedMs: 40_000, waiting: 1 })).toBe(50);
  });
});
