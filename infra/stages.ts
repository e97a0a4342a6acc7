import { type Environment, RemovalPolicy } from 'aws-cdk-lib';
import { type ILambdaDeploymentConfig, LambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  type AnyStageName,
  type DevStageName,
  isDevStageName,
  isPipelineStage,
  parseStackShape,
  parseStageName,
  SHAPE_SETTING,
  STAGE_NAMES,
  STAGE_SETTING,
  type StackShape,
  type StageName,
  StageNameError,
} from '#infra/stage-names';
import { DEV_PLANS, STAGE_PLANS } from '#infra/stage-plans';
import type { LogLevel } from '#shared/config';
import type { Plan, Plans } from '#shared/fair-use/plans';

/** The stages, as data: a stack gets one as props and never reads `process.env` itself. */

export interface AlarmThresholds {
  /** Share (0..1) of API requests answered with a 5xx over a period. */
  readonly serverErrorRate: number;
  /** p99 of API Gateway `Latency` (client-facing, authorizer included), in milliseconds. */
  readonly p99LatencyMs: number;
  /** Lambda `Errors` of one handler: crashes and timeouts (handled errors are responses). */
  readonly functionErrors: number;
  readonly functionThrottles: number;
  /** Errors the authorizer logged, not refused keys. */
  readonly authorizerFailures: number;
  readonly tableThrottles: number;
  /** 5xx answers of one function in a deployment alarm period. */
  readonly functionServerErrors: number;
  /** Through its `live` alias. */
  readonly functionP99DurationMs: number;
  /**
   * The events' lag: the age of the last record of the publisher's batches (Lambda's
   * `IteratorAge`, its maximum), in milliseconds.
   */
  readonly eventsIteratorAgeMs: number;
  /** The publisher's crashes and timeouts, and the records it logged it could not publish. */
  readonly publisherErrors: number;
  /** Batches of the stream given up on, in the failures queue: each holds events not published. */
  readonly eventFailuresQueued: number;
  readonly periodMinutes: number;
  /** Short, so a bad version's breaching periods fit inside a canary's 5 minutes and roll it back. */
  readonly deploymentPeriodMinutes: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
}

export interface DataProtection {
  readonly deletionProtection: boolean;
  /** 35 days, on every table. */
  readonly pointInTimeRecovery: boolean;
  /** Of tables and logs. */
  readonly removalPolicy: RemovalPolicy;
  readonly terminationProtection: boolean;
  /** Days (7 to 30) KMS waits to delete the alarm key once its stack is gone. @default 30, KMS's own */
  readonly keyPendingWindowDays?: number;
}

export type FirewallWindowSeconds = 60 | 120 | 300 | 600;

/** The stage's WAF web ACL (infra/constructs/firewall.ts): it costs money whether or not it blocks anything. */
export interface FirewallSettings {
  readonly enabled: boolean;
  /** Per IP in `windowSeconds` before WAF answers 403; at least the largest plan's rate over it (synth checks). */
  readonly requestsPerIp: number;
  readonly windowSeconds: FirewallWindowSeconds;
}

export type Throttle = Pick<Plan, 'rateLimit' | 'burstLimit'>;

/** The pets' events (infra/constructs/pet-events.ts). */
export interface EventSettings {
  /**
   * Days the bus's archive keeps each event, for a consumer to replay what it missed; the
   * archive's storage is billed (docs/costs.md). 0 would keep them for ever.
   */
  readonly archiveRetentionDays: number;
}

export interface StageConfig {
  /** Its stack is `PetStore-<name>`, its metrics carry it. */
  readonly name: AnyStageName;
  /**
   * `full`: the service and what operating it needs (alarms, `alarms` below; the dashboard; the
   * `live` aliases that `deployment` shifts); `lean`: the service alone (StackShape).
   */
  readonly shape: StackShape;
  /** Without account or region, environment-agnostic: CloudFormation resolves them at deploy time. */
  readonly env: Environment;
  /**
   * Default throttling of EACH method, so the stage admits methods × this:
   * "Throttle requests to your REST APIs for better throughput in API Gateway".
   */
  readonly throttling: Throttle;
  /**
   * Each write method's (RFC 9110's unsafe methods) lower limit: all writes' busiest second stays
   * under half the data model's ceiling (docs/deploy.md, "Throttling"; the infra tests hold it).
   */
  readonly writeThrottling: Throttle;
  readonly logRetention: RetentionDays;
  readonly logLevel: LogLevel;
  readonly alarms: AlarmThresholds;
  /**
   * Also how long a revoked key keeps working (keys are read strongly consistently): at most 60 s
   * in every stage (docs/operate.md, "API keys"; the infra tests hold it).
   */
  readonly authorizerCacheTtlSeconds: number;
  readonly deployment: ILambdaDeploymentConfig;
  readonly dataProtection: DataProtection;
  /**
   * Exact CORS origins, none for servers only. With one, API Gateway's own errors are readable by
   * it too; with several, only the functions' answers (docs/design.md, "CORS").
   */
  readonly allowedOrigins: readonly string[];
  readonly plans: Plans;
  readonly firewall: FirewallSettings;
  readonly events: EventSettings;
}

/** Production's expected peak, creates at most half of it; its throttle follows (docs/deploy.md, "Throttling"). */
export const PRODUCTION_EXPECTED_PEAK_REQUESTS_PER_SECOND = 1_000;
const PRODUCTION_EXPECTED_PEAK_CREATES_PER_SECOND = PRODUCTION_EXPECTED_PEAK_REQUESTS_PER_SECOND / 2;

/**
 * Creates a second before the hottest partition key (one of 16 status shards, 1 WCU a pet) reaches
 * DynamoDB's 1,000 WCU: 16 × 1,000 (`npm run bench`, the partition-load model, BENCHMARKS.md).
 */
export const DATA_MODEL_CEILING_CREATES_PER_SECOND = 16_000;

const PERIODS = { periodMinutes: 5, deploymentPeriodMinutes: 1, evaluationPeriods: 3, datapointsToAlarm: 2 };

export const STAGE_DEFAULTS: Readonly<Record<StageName, Omit<StageConfig, 'env'>>> = {
  staging: {
    name: 'staging',
    shape: 'full',
    // Writes the same: far below the data model's ceiling, and lower would let one address at the
    // firewall's 10 a second take a write method's whole rate.
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
      eventsIteratorAgeMs: 300_000,
      publisherErrors: 5,
      eventFailuresQueued: 1,
      ...PERIODS,
    },
    // Shorter than production: keys created or revoked while testing take effect sooner.
    authorizerCacheTtlSeconds: 30,
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
    // On, to show what the managed rules block before production does; one address gets 10 a second,
    // half of any method's throttle (docs/design.md, "Floods without a key"). About $8 a month idle.
    firewall: { enabled: true, requestsPerIp: 3_000, windowSeconds: 300 },
    // A week: long enough to replay what a consumer missed while trying something out.
    events: { archiveRetentionDays: 7 },
  },
  production: {
    name: 'production',
    shape: 'full',
    // Twice the peak per method, so a peak all on one method is served; the account quota (10,000 a
    // second) is the stage's overall bound (docs/deploy.md, "Throttling").
    throttling: {
      rateLimit: 2 * PRODUCTION_EXPECTED_PEAK_REQUESTS_PER_SECOND,
      burstLimit: 4 * PRODUCTION_EXPECTED_PEAK_REQUESTS_PER_SECOND,
    },
    // Twice the creates, burst no larger: every write method at rate + burst stays under half the
    // ceiling (16,000); with the stage's default each alone would reach 6,000.
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
      eventsIteratorAgeMs: 120_000,
      publisherErrors: 1,
      eventFailuresQueued: 1,
      ...PERIODS,
    },
    // A revoked key stops working within a minute; caching longer would save little.
    authorizerCacheTtlSeconds: 60,
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
    // About 67 a second per address: above the partner plan's 50, so only floods are blocked; under a
    // tenth of a method's throttle, so one address cannot starve a method for the keys.
    firewall: { enabled: true, requestsPerIp: 20_000, windowSeconds: 300 },
    // A year: a consumer that was down, or a new one, can replay what it needs.
    events: { archiveRetentionDays: 365 },
  },
};

/**
 * `dev-<name>`: staging sized for one person, lean unless asked for `full`; `cdk destroy` takes
 * everything, a full one's alarm key after KMS's shortest wait.
 */
export const devStage = (name: DevStageName, shape: StackShape = 'lean'): Omit<StageConfig, 'env'> => ({
  ...STAGE_DEFAULTS.staging,
  name,
  shape,
  // The smoke plan's 10 a second fits, a runaway loop costs little.
  throttling: { rateLimit: 10, burstLimit: 20 },
  writeThrottling: { rateLimit: 10, burstLimit: 20 },
  dataProtection: { ...STAGE_DEFAULTS.staging.dataProtection, keyPendingWindowDays: 7 },
  plans: DEV_PLANS,
  // Off: $8 a month, twice the rest of an idle dev stack (docs/costs.md), for an API only its
  // developer calls; staging tries the managed rules.
  firewall: { ...STAGE_DEFAULTS.staging.firewall, enabled: false },
  // A day: enough to try a replay, and nothing left to pay for after a week's test.
  events: { archiveRetentionDays: 1 },
});

/** What `npm run verify` expects to find deployed; a developer stage's shape is the one it was deployed in. */
export const stageDefaults = (name: AnyStageName, devShape?: StackShape): Omit<StageConfig, 'env'> =>
  isPipelineStage(name) ? STAGE_DEFAULTS[name] : devStage(name, devShape);

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
 * Staging, production, and the `-c stage=dev-<name>` one in the shape `-c shape` names (lean when
 * absent); any other value, or a shape without a developer stage, is a StageNameError.
 */
export const resolveStages = (sources: EnvironmentSources): StageConfig[] => {
  const named = sources.context(STAGE_SETTING);
  const dev = named === undefined ? undefined : parseStageName(named, `-c ${STAGE_SETTING}`);
  const shapeSetting = sources.context(SHAPE_SETTING);
  if (shapeSetting !== undefined && !(dev && isDevStageName(dev)))
    throw new StageNameError(
      `The setting -c ${SHAPE_SETTING} is for a developer stage (-c ${STAGE_SETTING}=dev-<name>): staging and production are always full.`,
    );
  const shape = parseStackShape(shapeSetting);
  const stage = (name: AnyStageName) => ({
    ...stageDefaults(name, shape),
    env: stageEnvironment(name, sources),
  });
  return [...STAGE_NAMES, ...(dev && isDevStageName(dev) ? [dev] : [])].map(stage);
};
