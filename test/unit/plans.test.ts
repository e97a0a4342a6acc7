import { describe, expect, it } from 'vitest';
import { LOCAL_KEY_PLAN, LOCAL_PLANS, STAGE_PLANS } from '#infra/stage-plans';
import { ConfigError, ENV, readFunctionConfig, readPlans } from '#shared/config';
import { checkPlans, isPlanName, PlansError, planNames, planOf } from '#shared/fair-use/plans';
import {
  parseRateLimitPolicy,
  RATE_LIMIT_POLICY_PATTERN,
  rateLimitPolicy,
} from '#shared/http/rate-limit-policy';
import { TEST_PLANS } from '../support/plans';

const STANDARD = { rateLimit: 10, burstLimit: 20, quota: { limit: 10_000, period: 'DAY' } } as const;

describe('RateLimit-Policy', () => {
  it('names the quota after the plan and the rate after the plan plus -rate, with q and w as the draft defines them', () => {
    expect(rateLimitPolicy('standard', STANDARD)).toBe(
      '"standard";q=10000;w=86400, "standard-rate";q=20;w=2',
    );
  });

  it('writes a calendar month as 30 days', () => {
    const partner = { rateLimit: 50, burstLimit: 100, quota: { limit: 1_000_000, period: 'MONTH' } } as const;

    expect(rateLimitPolicy('partner', partner)).toBe(
      '"partner";q=1000000;w=2592000, "partner-rate";q=100;w=2',
    );
  });

  it('rounds the refill time up, so q per w never exceeds the steady rate', () => {
    const uneven = { rateLimit: 10, burstLimit: 15, quota: { limit: 1, period: 'DAY' } } as const;

    const [, rate] = parseRateLimitPolicy(rateLimitPolicy('uneven', uneven)) ?? [];

    expect(rate).toEqual({ name: 'uneven-rate', quota: 15, windowSeconds: 2 });
    expect((rate?.quota ?? 0) / (rate?.windowSeconds ?? 1)).toBeLessThanOrEqual(uneven.rateLimit);
  });

  it('reads back what it writes, and matches the pattern the OpenAPI document gives', () => {
    const value = rateLimitPolicy('standard', STANDARD);

    expect(parseRateLimitPolicy(value)).toEqual([
      { name: 'standard', quota: 10_000, windowSeconds: 86_400 },
      { name: 'standard-rate', quota: 20, windowSeconds: 2 },
    ]);
    expect(value).toMatch(new RegExp(RATE_LIMIT_POLICY_PATTERN));
  });

  it.each(['', 'standard;q=1;w=1', '"standard";q=1', '"standard";q=-1;w=1', '"Standard";q=1;w=1'])(
    'reads %j as no policy of this service',
    (value) => {
      expect(parseRateLimitPolicy(value)).toBeUndefined();
    },
  );
});

describe('plans', () => {
  it.each([
    ['no plan at all', { plans: {}, defaultPlan: 'x' }, /at least one plan/],
    [
      'a default that is not a plan',
      { plans: { a: STANDARD }, defaultPlan: 'b' },
      /defaultPlan must be one of a/,
    ],
    ['an upper-case name', { plans: { Gold: STANDARD }, defaultPlan: 'Gold' }, /plan name "Gold"/],
    [
      'a burst below the rate',
      { plans: { a: { ...STANDARD, burstLimit: 5 } }, defaultPlan: 'a' },
      /plans\.a\.burstLimit must be at least rateLimit/,
    ],
    [
      'a fractional rate',
      { plans: { a: { ...STANDARD, rateLimit: 0.5 } }, defaultPlan: 'a' },
      /plans\.a\.rateLimit must be a whole number/,
    ],
    [
      'a weekly quota',
      { plans: { a: { ...STANDARD, quota: { limit: 1, period: 'WEEK' } } }, defaultPlan: 'a' },
      /plans\.a\.quota\.period must be one of DAY, MONTH/,
    ],
    [
      'a quota of zero',
      { plans: { a: { ...STANDARD, quota: { limit: 0, period: 'DAY' } } }, defaultPlan: 'a' },
      /plans\.a\.quota\.limit/,
    ],
  ])('are refused with %s, naming the problem', (_case, value, message) => {
    expect(() => checkPlans(value)).toThrow(message);
  });

  it('of every stage, and of the local server (staging’s and its own key’s), are valid', () => {
    for (const plans of [...Object.values(STAGE_PLANS), LOCAL_PLANS])
      expect(checkPlans(plans)).toEqual(plans);
    expect(LOCAL_PLANS.plans).toEqual({ ...STAGE_PLANS.staging.plans, [LOCAL_KEY_PLAN]: expect.anything() });
    expect(LOCAL_PLANS.defaultPlan).toBe(STAGE_PLANS.staging.defaultPlan);
  });

  it.each([
    ['null', null, 'plans must be an object of plans by name'],
    ['a list', [], 'plans must be an object of plans by name'],
    ['plans as a list', { plans: [STANDARD], defaultPlan: '0' }, 'plans must be an object of plans by name'],
    ['plans as null', { plans: null, defaultPlan: 'a' }, 'plans must be an object of plans by name'],
    ['a plan that is not an object', { plans: { a: 10 }, defaultPlan: 'a' }, 'plans.a must be an object'],
    ['a plan that is a list', { plans: { a: [] }, defaultPlan: 'a' }, 'plans.a must be an object'],
    [
      'a rate of zero',
      { plans: { a: { ...STANDARD, rateLimit: 0 } }, defaultPlan: 'a' },
      'plans.a.rateLimit must be a whole number of at least 1, not 0',
    ],
    [
      'a burst given as text',
      { plans: { a: { ...STANDARD, burstLimit: '20' } }, defaultPlan: 'a' },
      'plans.a.burstLimit must be a whole number of at least 1, not "20"',
    ],
    [
      'a burst below the rate',
      { plans: { a: { ...STANDARD, burstLimit: 9 } }, defaultPlan: 'a' },
      'plans.a.burstLimit must be at least rateLimit (10): the bucket holds a second of requests',
    ],
    [
      'a quota that is not an object',
      { plans: { a: { ...STANDARD, quota: 5 } }, defaultPlan: 'a' },
      'plans.a.quota must be an object',
    ],
    [
      'a quota with no period',
      { plans: { a: { ...STANDARD, quota: { limit: 1 } } }, defaultPlan: 'a' },
      'plans.a.quota.period must be one of DAY, MONTH, not undefined',
    ],
    [
      'a name starting with a digit',
      { plans: { '1a': STANDARD }, defaultPlan: '1a' },
      'plan name "1a" must be lower-case letters, digits and -, starting with a letter',
    ],
    [
      'a name of 33 characters',
      { plans: { [`a${'b'.repeat(32)}`]: STANDARD }, defaultPlan: 'a' },
      `plan name "a${'b'.repeat(32)}" must be lower-case letters, digits and -, starting with a letter`,
    ],
    [
      'a default that is not a string',
      { plans: { a: STANDARD, b: STANDARD }, defaultPlan: 1 },
      'defaultPlan must be one of a, b, not 1',
    ],
    [
      'a default inherited from every object',
      { plans: { a: STANDARD }, defaultPlan: 'toString' },
      'defaultPlan must be one of a, not "toString"',
    ],
  ])('are refused with %s, with a PlansError saying exactly what is wrong', (_case, value, message) => {
    let thrown: unknown;
    try {
      checkPlans(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PlansError);
    expect((thrown as PlansError).name).toBe('PlansError');
    expect((thrown as PlansError).message).toBe(message);
  });

  it('take a burst equal to the rate, a monthly quota and names of up to 32 characters, keeping only what a plan holds', () => {
    const name = `a${'-9'.repeat(15)}b`;
    const plan = {
      rateLimit: 1,
      burstLimit: 1,
      quota: { limit: 1, period: 'MONTH', note: 'x' },
      extra: true,
    };

    expect(checkPlans({ plans: { [name]: plan }, defaultPlan: name, other: 1 })).toEqual({
      plans: { [name]: { rateLimit: 1, burstLimit: 1, quota: { limit: 1, period: 'MONTH' } } },
      defaultPlan: name,
    });
  });

  it('are named in their order, and a name is a plan only when it is one of them', () => {
    expect(planNames(TEST_PLANS)).toEqual(Object.keys(TEST_PLANS.plans));
    expect(isPlanName(TEST_PLANS, 'tight')).toBe(true);
    expect(isPlanName(TEST_PLANS, 'gold')).toBe(false);
    expect(isPlanName(TEST_PLANS, 'toString')).toBe(false);
    expect(planOf(TEST_PLANS, 'toString')).toBeUndefined();
  });

  it('put a key whose record names no plan on the default one, with its limits', () => {
    expect(planOf(TEST_PLANS, undefined)).toEqual({ name: 'roomy', plan: TEST_PLANS.plans.roomy });
    expect(planOf({ ...TEST_PLANS, defaultPlan: 'gone' }, undefined)).toBeUndefined();
  });

  it("put a key on its record's plan, or on the default one when it names none", () => {
    expect(planOf(TEST_PLANS, 'tight')?.name).toBe('tight');
    expect(planOf(TEST_PLANS, undefined)?.name).toBe('roomy');
    expect(planOf(TEST_PLANS, 'gold')).toBeUndefined();
  });
});

describe(`${ENV.plans}`, () => {
  it('gives a function its plans, from JSON', () => {
    const env = { [ENV.plans]: JSON.stringify(TEST_PLANS) };

    expect(readFunctionConfig([], env).plans).toEqual(TEST_PLANS);
  });

  it('fails at cold start on anything but valid plans, naming the variable and the problem', () => {
    expect(() => readPlans(ENV.plans, 'standard')).toThrow(ConfigError);
    expect(() => readPlans(ENV.plans, 'standard')).toThrow(/^PETSTORE_PLANS must be the plans as JSON/);
    expect(() => readPlans(ENV.plans, '{"plans":{},"defaultPlan":"a"}')).toThrow(
      /^PETSTORE_PLANS: plans must name at least one plan$/,
    );
  });
});
