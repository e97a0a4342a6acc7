import { type Environment, RemovalPolicy } from 'aws-cdk-lib';
import { type ILambdaDeploymentConfig, LambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  type AnyStageName,
  type DevStageName,
  isDevStageName,
  isPipelineStage,
  parseStageName,
  STAGE_NAMES,
  STAGE_SETTING,
  type StageName,
} from '#infra/stage-names';
import { DEV_PLANS, STAGE_PLANS } from '#infra/stage-plans';
import type { LogLevel } from '#shared/config';
import type { Plan, Plans } from '#shared/fair-use/plans';

/** The stages, as data: a stack gets one as props and never reads `process.env` itself. */

export interface AlarmThresholds {
  /** Share of API requests answered with a 5xx (0..1), averaged over a period. */
  readonly serverErrorRate: number;
  /** p99 of API Gateway `Latency` (client-facing, authorizer included), in milliseconds. */
  readonly p99LatencyMs: number;
  /** Lambda `Errors` of one handler in a period: crashes and timeouts (handled errors are responses). */
  readonly functionErrors: number;
  readonly functionThrottles: number;
  /** Errors the authorizer logged, not refused keys. */
  readonly authorizerFailures: number;
  /** Read plus write throttle events of one table. */
  readonly tableThrottles: number;
  /** 5xx answers of one function in a deployment alarm period. */
  readonly functionServerErrors: number;
  /** Through its `live` alias. */
  readonly functionP99DurationMs: number;
  readonly periodMinutes: number;
  /**
   * Short, so that `datapointsToAlarm` breaching periods fit inside a canary's 5 minutes and a bad
   * version is rolled back before it takes all the traffic.
   */
  readonly deploymentPeriodMinutes: number;
  readonly evaluationPeriods: number;
  /** At most `evaluationPeriods`. */
  readonly datapointsToAlarm: number;
}

export interface DataProtection {
  readonly deletionProtection: boolean;
  /** 35 days, on every table. */
  readonly pointInTimeRecovery: boolean;
  /** Of tables and logs. */
  readonly removalPolicy: RemovalPolicy;
  readonly terminationProtection: boolean;
  /**
   * Days the alarm topic's KMS key waits, once its stack is deleted, before KMS deletes it (7 to 30).
   * @default 30, KMS's own
   */
  readonly keyPendingWindowDays?: number;
}

export type FirewallWindowSeconds = 60 | 120 | 300 | 600;

/** The stage's WAF web ACL (infra/constructs/firewall.ts): it costs money whether or not it blocks anything. */
export interface FirewallSettings {
  readonly enabled: boolean;
  /**
   * Requests one IP address may send in `windowSeconds` before WAF blocks its requests (403
   * FORBIDDEN) until its rate falls back. At least the largest plan's rate over the window: a
   * key's server behind one address must never be blocked within its plan (the synth checks it).
   */
  readonly requestsPerIp: number;
  readonly windowSeconds: FirewallWindowSeconds;
}

/** A token bucket, as a plan's: `rateLimit` requests a second into a bucket of `burstLimit`. */
export type Throttle = Pick<Plan, 'rateLimit' | 'burstLimit'>;

export interface StageConfig {
  /** Its stack is `PetStore-<name>`, its metrics carry it. */
  readonly name: AnyStageName;
  /** Without account or region, environment-agnostic: CloudFormation resolves them at deploy time. */
  readonly env: Environment;
  /**
   * API Gateway's default method throttling of the stage: steady requests per second, and the
   * burst above it. API Gateway applies it to EACH method of the stage, not to the stage as a whole
   * ("Throttle requests to your REST APIs for better throughput in API Gateway"), so the stage
   * admits up to (number of methods) × this.
   */
  readonly throttling: Throttle;
  /**
   * The limit of each method that writes (POST, PATCH, DELETE: RFC 9110's unsafe methods) instead
   * of `throttling`, at most it: the writes' busiest second, all write methods together, stays
   * under half the data model's ceiling (docs/deploy.md, "Throttling"; the infra tests hold it).
   */
  readonly writeThrottling: Throttle;
  /** Of function logs and API access logs. */
  readonly logRetention: RetentionDays;
  readonly logLevel: LogLevel;
  readonly alarms: AlarmThresholds;
  /**
   * How long API Gateway reuses an authorizer decision for the same token. It is also how long a
   * revoked key keeps working: at most 60 s in every stage (docs/operate.md, "API keys"; the infra
   * tests hold every stage to it). The authorizer reads keys strongly consistently, so the TTL is the whole delay.
   */
  readonly authorizerCacheTtlSeconds: number;
  /** How CodeDeploy shifts each function's traffic to a new version; a deployment alarm rolls it back. */
  readonly deployment: ILambdaDeploymentConfig;
  readonly dataProtection: DataProtection;
  /**
   * Web origins whose pages may call the API from a browser (CORS): exact origins such as
   * `https://app.example.com`; none for an API only servers call. With one origin, API Gateway's
   * own errors (401, 429…) are readable by that page too; with several, only the functions'
   * answers are (docs/design.md, "CORS").
   */
  readonly allowedOrigins: readonly string[];
  /** A usage plan each in API Gateway (infra/stage-plans.ts). */
  readonly plans: Plans;
  readonly firewall: FirewallSettings;
}

/**
 * What production's throttle is sized for (docs/deploy.md, "Throttling"): an expected peak of
 * 1,000 requests a second, creates at most half of them. Change it here when the expected load
 * changes, and the throttle with it.
 */
export const PRODUCTION_EXPECTED_PEAK_REQUESTS_PER_SECOND = 1_000;
const PRODUCTION_EXPECTED_PEAK_CREATES_PER_SECOND = PRODUCTION_EXPECTED_PEAK_REQUESTS_PER_SECOND / 2;

/**
 * The create rate the data model takes before its hottest partition key reaches DynamoDB's
 * 1,000 write units a second: one status shard's key takes 1/16 of the creates of a status, one
 * write unit each (a pet is under 1 KB), so 16 × 1,000. `npm run bench` measures it (the
 * partition-load model, BENCHMARKS.md), and the write methods' own throttle keeps production's
 * busiest second of writes under half of it.
 */
export const DATA_MODEL_CEILING_CREATES_PER_SECOND = 16_000;

/** How every stage's alarms are evaluated: 2 breaching periods of the last 3 (1 minute for a deployment's). */
const PERIODS = { periodMinutes: 5, deploymentPeriodMinutes: 1, evaluationPeriods: 3, datapointsToAlarm: 2 };

export const STAGE_DEFAULTS: Readonly<Record<StageName, Omit<StageConfig, 'env'>>> = {
  staging: {
    name: 'staging',
    // Per method (every method of the stage has it). Writes the same: staging's are far below any
    // ceiling of the data model, and a lower limit would let one address, at the firewall's 10 a
    // second (no less than the fastest plan), take a write method's whole rate.
    throttling: { rateLimit: 20, burstLimit: 40 },
    writeThrottling: { rateLimit: 20, burstLimit: 40 },
    logRetention: RetentionDays.ONE_WEEK,
    logLevel: 'DEBUG',
    alarms: {
      serverErrorRate: 0.05,
      p99LatencyMs: 3_000,
      functionErrors: 5,
      functionThrottles: 5,
      authorizerFailures: 5,
      tableThrottles: 10,
      functionServerErrors: 5,
      functionP99DurationMs: 2_000,
      ...PERIODS,
    },
    // Shorter than production: keys created or revoked while testing take effect sooner.
    authorizerCacheTtlSeconds: 30,
    // A new version takes all the traffic at once: staging is where versions are tried first.
    deployment: LambdaDeploymentConfig.ALL_AT_ONCE,
    // A web client's development server (Vite's default port) may call staging.
    allowedOrigins: ['http://localhost:5173'],
    // Disposable: a staging stack can be deleted and rebuilt with its data.
    dataProtection: {
      deletionProtection: false,
      pointInTimeRecovery: false,
      removalPolicy: RemovalPolicy.DESTROY,
      terminationProtection: false,
    },
    plans: STAGE_PLANS.staging,
    // On, as in production, so that a first staging deployment shows what the managed rules block
    // before production does; and one address is held to 10 a second, half of any one method's
    // throttle (the stage's default applies to each method, writes included), so a
    // single source of unauthenticated requests cannot starve the keys on any method
    // (docs/design.md, "Floods without a key"). About $8 a month idle.
    firewall: { enabled: true, requestsPerIp: 3_000, windowSeconds: 300 },
  },
  production: {
    name: 'production',
    // Each method: twice the expected peak, and twice that as a burst, so that even a peak that
    // all goes to one method is served. API Gateway applies it to every method, so the stage as a
    // whole admits methods × 2,000, more than API Gateway's default account quota (10,000 a
    // second): that quota is production's overall bound (docs/deploy.md, "Throttling").
    throttling: {
      rateLimit: 2 * PRODUCTION_EXPECTED_PEAK_REQUESTS_PER_SECOND,
      burstLimit: 4 * PRODUCTION_EXPECTED_PEAK_REQUESTS_PER_SECOND,
    },
    // Each write method: twice the expected creates, the burst no larger, so that the writes'
    // busiest second, every write method at rate + burst, stays under half the data model's
    // ceiling (16,000): with the stage's default, each write method alone would reach 6,000.
    writeThrottling: {
      rateLimit: 2 * PRODUCTION_EXPECTED_PEAK_CREATES_PER_SECOND,
      burstLimit: 2 * PRODUCTION_EXPECTED_PEAK_CREATES_PER_SECOND,
    },
    logRetention: RetentionDays.THREE_MONTHS,
    logLevel: 'INFO',
    alarms: {
      serverErrorRate: 0.01,
      p99LatencyMs: 2_000,
      functionErrors: 1,
      functionThrottles: 1,
      authorizerFailures: 1,
      tableThrottles: 1,
      functionServerErrors: 1,
      functionP99DurationMs: 1_000,
      ...PERIODS,
    },
    // A revoked key stops working within a minute; caching longer would save little.
    authorizerCacheTtlSeconds: 60,
    // A canary: 10% of each function's requests go to a new version for 5 minutes, then all of them.
    deployment: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
    // Servers only until a web client ships; its origin goes here then.
    allowedOrigins: [],
    // Retained and recoverable: deleting the stack (or a bad change) never deletes a pet.
    dataProtection: {
      deletionProtection: true,
      pointInTimeRecovery: true,
      removalPolicy: RemovalPolicy.RETAIN,
      terminationProtection: true,
    },
    plans: STAGE_PLANS.production,
    // 20,000 per 5 minutes (about 67 a second) from one address: above the partner plan's 50 a
    // second, so only floods, with or without a key, are blocked before the authorizer runs; under
    // a tenth of any one method's throttle (2,000 a second, 1,000 a write method), so one address
    // cannot starve a method for the keys.
    firewall: { enabled: true, requestsPerIp: 20_000, windowSeconds: 300 },
  },
};

/**
 * A developer's own stage, `dev-<name>`: the same service as staging, sized for one person and
 * built to be thrown away. Everything in it goes with `cdk destroy` (tables, logs, the alarm key
 * after KMS's shortest wait); one plan smaller than staging's; no firewall (below).
 */
export const devStage = (name: DevStageName): Omit<StageConfig, 'env'> => ({
  ...STAGE_DEFAULTS.staging,
  name,
  // Per method, as every stage's: the smoke plan's 10 a second fits, a runaway loop costs little.
  throttling: { rateLimit: 10, burstLimit: 20 },
  writeThrottling: { rateLimit: 10, burstLimit: 20 },
  dataProtection: { ...STAGE_DEFAULTS.staging.dataProtection, keyPendingWindowDays: 7 },
  plans: DEV_PLANS,
  // Off: a web ACL and its 3 rules cost $8 a month whether or not anything is blocked, twice the
  // rest of an idle dev stack (docs/costs.md), to guard an API only its developer calls, for hours.
  // What the managed rules block is tried on staging, which has them.
  firewall: { ...STAGE_DEFAULTS.staging.firewall, enabled: false },
});

/** What a stage is configured as, a developer's included: what `npm run verify` expects to find deployed. */
export const stageDefaults = (name: AnyStageName): Omit<StageConfig, 'env'> =>
  isPipelineStage(name) ? STAGE_DEFAULTS[name] : devStage(name);

export interface EnvironmentSources {
  /** CDK context, e.g. `-c production:account=111122223333 -c production:region=eu-west-1`. */
  readonly context: (key: string) => unknown;
  /** `CDK_DEFAULT_ACCOUNT`, `CDK_DEFAULT_REGION`, set by the CDK CLI. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** Account and region of a stage: context `<stage>:account` / `<stage>:region`, else the CLI defaults. */
export const stageEnvironment = (stage: AnyStageName, sources: EnvironmentSources): Environment => {
  const account = nonEmpty(sources.context(`${stage}:account`)) ?? nonEmpty(sources.env.CDK_DEFAULT_ACCOUNT);
  const region = nonEmpty(sources.context(`${stage}:region`)) ?? nonEmpty(sources.env.CDK_DEFAULT_REGION);
  return { ...(account ? { account } : {}), ...(region ? { region } : {}) };
};

/**
 * The stages of the app: staging and production always, and the developer's stage the context
 * `stage` names (`-c stage=dev-<name>`); any other value of it fails with a StageNameError, one
 * sentence naming the setting.
 */
export const resolveStages = (sources: EnvironmentSources): StageConfig[] => {
  const stage = (name: AnyStageName) => ({ ...stageDefaults(name), env: stageEnvironment(name, sources) });
  const named = sources.context(STAGE_SETTING);
  const dev = named === undefined ? undefined : parseStageName(named, `-c ${STAGE_SETTING}`);
  return [...STAGE_NAMES, ...(dev && isDevStageName(dev) ? [dev] : [])].map(stage);
};
