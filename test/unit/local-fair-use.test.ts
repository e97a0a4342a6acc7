import { describe, expect, it } from 'vitest';
import type { Plans } from '#shared/fair-use/plans';
import { callerOf, FairUse, quotaWindow, TokenBucket } from '#tools/local/fair-use';

/** A clock the test moves by hand: no test here waits for time to pass. */
const manualClock = (start = Date.UTC(2026, 0, 15, 12, 0, 0)) => {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    set: (at: number) => {
      now = at;
    },
  };
};

describe('a token bucket', () => {
  it('lets a full burst through at once, then refuses', () => {
    const bucket = new TokenBucket(3, 1, 0);

    expect([bucket.take(0), bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('refills at its rate, one token per 1/rate seconds, and not before', () => {
    const bucket = new TokenBucket(2, 4, 0);
    bucket.take(0);
    bucket.take(0);

    expect(bucket.take(249)).toBe(false);
    expect(bucket.take(250)).toBe(true);
    expect(bucket.take(250)).toBe(false);
  });

  it('never holds more than its capacity, however long it waits', () => {
    const bucket = new TokenBucket(2, 10, 0);

    expect(bucket.available(3_600_000)).toBe(2);
  });

  it('does not refill backwards when the clock steps back', () => {
    const bucket = new TokenBucket(1, 1, 10_000);
    bucket.take(10_000);

    expect(bucket.take(5_000)).toBe(false);
    expect(bucket.take(11_000)).toBe(true);
  });
});

describe('a quota window', () => {
  it('is the calendar day in UTC', () => {
    expect(quotaWindow('DAY', Date.UTC(2026, 0, 15, 23, 59, 59))).toEqual({
      start: Date.UTC(2026, 0, 15),
      end: Date.UTC(2026, 0, 16),
    });
  });

  it('is the calendar month in UTC, across a year end', () => {
    expect(quotaWindow('MONTH', Date.UTC(2026, 11, 31, 12))).toEqual({
      start: Date.UTC(2026, 11, 1),
      end: Date.UTC(2027, 0, 1),
    });
  });
});

const PLANS: Plans = {
  plans: {
    small: { rateLimit: 2, burstLimit: 4, quota: { limit: 10, period: 'DAY' } },
    large: { rateLimit: 100, burstLimit: 200, quota: { limit: 1_000, period: 'MONTH' } },
  },
  defaultPlan: 'small',
};

describe('fair use per key', () => {
  const burst = (fairUse: FairUse, caller: { keyId: string; plan: string }, count: number) =>
    Array.from({ length: count }, () => fairUse.admit(caller));

  it('throttles a key past its burst with THROTTLED, and lets it through again once a token refills', () => {
    const clock = manualClock();
    const fairUse = new FairUse(PLANS, clock.now);
    const noisy = { keyId: 'key-noisy', plan: 'small' };

    expect(burst(fairUse, noisy, 5)).toEqual([
      ...Array(4).fill({ admitted: true }),
      { admitted: false, refusal: 'THROTTLED' },
    ]);
    clock.advance(500);
    expect(fairUse.admit(noisy)).toEqual({ admitted: true });
  });

  it('keeps keys apart: a noisy key spends only its own bucket', () => {
    const clock = manualClock();
    const fairUse = new FairUse(PLANS, clock.now);
    burst(fairUse, { keyId: 'key-noisy', plan: 'small' }, 50);

    expect(burst(fairUse, { keyId: 'key-quiet', plan: 'small' }, 4)).toEqual(
      Array(4).fill({ admitted: true }),
    );
  });

  it('refuses with QUOTA_EXCEEDED once the quota is used, until the next calendar day', () => {
    const clock = manualClock(Date.UTC(2026, 0, 15, 0, 0, 0));
    const fairUse = new FairUse(PLANS, clock.now);
    const caller = { keyId: 'key-busy', plan: 'small' };
    for (let minute = 0; minute < 10; minute += 1) {
      expect(fairUse.admit(caller)).toEqual({ admitted: true });
      clock.advance(60_000);
    }

    expect(fairUse.admit(caller)).toEqual({ admitted: false, refusal: 'QUOTA_EXCEEDED' });
    clock.set(Date.UTC(2026, 0, 15, 23, 59, 59));
    expect(fairUse.admit(caller)).toEqual({ admitted: false, refusal: 'QUOTA_EXCEEDED' });
    clock.set(Date.UTC(2026, 0, 16, 0, 0, 0));
    expect(fairUse.admit(caller)).toEqual({ admitted: true });
  });

  it('counts neither throttled nor over-quota refusals against the quota', () => {
    const clock = manualClock();
    const fairUse = new FairUse(PLANS, clock.now);
    const caller = { keyId: 'key-eager', plan: 'small' };
    // 4 admitted of 100 at once: the other 96 were throttled and cost nothing.
    burst(fairUse, caller, 100);
    clock.advance(60_000);

    expect(burst(fairUse, caller, 4)).toEqual(Array(4).fill({ admitted: true }));
    clock.advance(60_000);
    expect(burst(fairUse, caller, 3)).toEqual([
      { admitted: true },
      { admitted: true },
      { admitted: false, refusal: 'QUOTA_EXCEEDED' },
    ]);
  });

  it('starts a key moved to another plan afresh on that plan', () => {
    const clock = manualClock();
    const fairUse = new FairUse(PLANS, clock.now);
    burst(fairUse, { keyId: 'key-moved', plan: 'small' }, 10);

    expect(burst(fairUse, { keyId: 'key-moved', plan: 'large' }, 200)).toEqual(
      Array(200).fill({ admitted: true }),
    );
  });

  it('fails on a plan it does not have, rather than let the key through unmetered', () => {
    const fairUse = new FairUse(PLANS, manualClock().now);

    expect(() => fairUse.admit({ keyId: 'key-x', plan: 'gold' })).toThrow(
      'The local gateway has no plan "gold"',
    );
  });

  it("reads the caller from the authorizer's answer, and fails on one naming no plan", () => {
    expect(callerOf({ principalId: 'key-1', context: { plan: 'small' } })).toEqual({
      keyId: 'key-1',
      plan: 'small',
    });
    expect(() => callerOf({ principalId: 'key-1', context: {} })).toThrow(/named no plan/);
    expect(() => callerOf({ principalId: 'key-1', context: null })).toThrow(/named no plan/);
    expect(() => callerOf({ principalId: 'key-1' })).toThrow(/named no plan/);
  });
});
