import type { Plans } from '#shared/fair-use/plans';

/**
 * Plans for tests, written out. `roomy` (the default) never gets in the way of a test that sends
 * hundreds of requests; `tight` is reached in a few requests, rate and quota alike; `slow` only
 * by its rate.
 */
export const TEST_PLANS: Plans = {
  plans: {
    roomy: { rateLimit: 1_000, burstLimit: 2_000, quota: { limit: 1_000_000, period: 'DAY' } },
    tight: { rateLimit: 1, burstLimit: 2, quota: { limit: 5, period: 'DAY' } },
    slow: { rateLimit: 1, burstLimit: 2, quota: { limit: 10_000, period: 'DAY' } },
  },
  defaultPlan: 'roomy',
};

/** The `RateLimit-Policy` of a key on `roomy`, written out. */
export const ROOMY_POLICY = '"roomy";q=1000000;w=86400, "roomy-rate";q=2000;w=2';
