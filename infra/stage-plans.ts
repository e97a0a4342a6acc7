import { type AnyStageName, isPipelineStage, type StageName } from '#infra/stage-names';
import type { Plan, Plans } from '#shared/fair-use/plans';

/**
 * The pipeline's smoke key (`npm run keys -- create smoke --plan smoke`): the contract suite finishes
 * in about a minute; the quota, a few dozen runs a day, is all a leaked pipeline secret can spend.
 */
export const SMOKE_PLANS = {
  staging: { rateLimit: 10, burstLimit: 20, quota: { limit: 5_000, period: 'DAY' } },
  production: { rateLimit: 5, burstLimit: 10, quota: { limit: 2_000, period: 'DAY' } },
} as const satisfies Readonly<Record<StageName, Plans['plans'][string]>>;

/** Small on purpose: a client's back-off is tried against it (a quota reached in minutes). */
const TRIAL_PLAN = {
  rateLimit: 1,
  burstLimit: 2,
  quota: { limit: 100, period: 'DAY' },
} as const satisfies Plan;

/**
 * docs/operate.md, "Plans". No CDK here, so the keys command and local server read them cheaply.
 * Within the stage's throttling (infra/stages.ts), or the synth fails.
 */
export const STAGE_PLANS: Readonly<Record<StageName, Plans>> = {
  staging: {
    plans: {
      trial: TRIAL_PLAN,
      standard: { rateLimit: 5, burstLimit: 10, quota: { limit: 5_000, period: 'DAY' } },
      partner: { rateLimit: 10, burstLimit: 20, quota: { limit: 100_000, period: 'MONTH' } },
      smoke: SMOKE_PLANS.staging,
    },
    defaultPlan: 'standard',
  },
  production: {
    plans: {
      standard: { rateLimit: 10, burstLimit: 20, quota: { limit: 10_000, period: 'DAY' } },
      partner: { rateLimit: 50, burstLimit: 100, quota: { limit: 1_000_000, period: 'MONTH' } },
      smoke: SMOKE_PLANS.production,
    },
    defaultPlan: 'standard',
  },
};

/** Every `dev-<name>` stage's: `trial` lets the throttling check see a 429; quotas fit a day of trying things. */
export const DEV_PLANS: Plans = {
  plans: {
    trial: TRIAL_PLAN,
    standard: { rateLimit: 5, burstLimit: 10, quota: { limit: 1_000, period: 'DAY' } },
    smoke: SMOKE_PLANS.staging,
  },
  defaultPlan: 'standard',
};

export const plansOf = (stage: AnyStageName): Plans =>
  isPipelineStage(stage) ? STAGE_PLANS[stage] : DEV_PLANS;

/** The stack gives it and `npm run keys` finds it by it. */
export const usagePlanName = (stackName: string, plan: string): string => `${stackName}-${plan}`;

/**
 * Staging's, so a client on a laptop is paced as on staging, plus `local` for `npm start`'s key
 * (unless PETSTORE_API_KEY_PLAN names another), large enough that a test run is never throttled.
 */
export const LOCAL_PLANS: Plans = {
  plans: {
    ...STAGE_PLANS.staging.plans,
    local: { rateLimit: 1_000, burstLimit: 2_000, quota: { limit: 10_000_000, period: 'DAY' } },
  },
  defaultPlan: STAGE_PLANS.staging.defaultPlan,
};

export const LOCAL_KEY_PLAN = 'local';
