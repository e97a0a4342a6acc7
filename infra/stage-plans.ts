import { type AnyStageName, isPipelineStage, type StageName } from '#infra/stage-names';
import type { Plan, Plans } from '#shared/fair-use/plans';

/**
 * The plan of each stage's smoke key (`npm run keys -- create smoke --plan smoke`), which the
 * pipeline's smoke run uses: its rate lets the contract suite, which keeps to it, finish in about
 * a minute (a full run sends about 200 requests, a read-only one fewer); its quota, a few dozen runs
 * a day, is all a leaked pipeline secret can spend. Staging runs the whole suite, production the
 * read-only part.
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
 * Each stage's plans, as data (docs/operate.md, "Plans"): what an API key on each may send. No CDK
 * here, so the keys command and the local server can read them cheaply. A plan's rate and burst
 * stay within the stage's own throttling (infra/stages.ts), which bounds all keys together on each
 * method; the synth fails otherwise.
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

/**
 * The plans of every `dev-<name>` stage: a developer's own stack, called by that developer and
 * `npm run smoke`. The smoke plan is staging's (the contract suite at its usual pace); `trial` lets
 * the throttling check see a 429; no quota is larger than a day of trying things.
 */
export const DEV_PLANS: Plans = {
  plans: {
    trial: TRIAL_PLAN,
    standard: { rateLimit: 5, burstLimit: 10, quota: { limit: 1_000, period: 'DAY' } },
    smoke: SMOKE_PLANS.staging,
  },
  defaultPlan: 'standard',
};

/** The plans of a stage, a developer's included. */
export const plansOf = (stage: AnyStageName): Plans =>
  isPipelineStage(stage) ? STAGE_PLANS[stage] : DEV_PLANS;

/** The name of a plan's usage plan in API Gateway: the stack gives it and `npm run keys` finds it by it. */
export const usagePlanName = (stackName: string, plan: string): string => `${stackName}-${plan}`;

/**
 * The plans of the local server: staging's, so that a client tried on a laptop is paced as on
 * staging (`trial`'s small numbers make both refusals, rate and quota, easy to reach), plus
 * `local`, the plan of `npm start`'s own key unless PETSTORE_API_KEY_PLAN names another. It is
 * large enough that a test run or `npm run smoke` (hundreds of requests in seconds, over staging's
 * `standard` rate) is never throttled; `PETSTORE_API_KEY_PLAN=trial` puts the key on staging's
 * numbers to try a client's back-off. Keys made with `npm run keys` locally get staging's default.
 */
export const LOCAL_PLANS: Plans = {
  plans: {
    ...STAGE_PLANS.staging.plans,
    local: { rateLimit: 1_000, burstLimit: 2_000, quota: { limit: 10_000_000, period: 'DAY' } },
  },
  defaultPlan: STAGE_PLANS.staging.defaultPlan,
};

export const LOCAL_KEY_PLAN = 'local';
