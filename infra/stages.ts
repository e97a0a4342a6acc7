import { RemovalPolicy } from 'aws-cdk-lib';
import { type ILambdaDeploymentConfig, LambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { STAGE_NAMES, type StageName } from '#infra/stage-names';
import type { LogLevel } from '#shared/config';

export { STAGE_NAMES, type StageName, stackName } from '#infra/stage-names';

/**
 * The stages the service runs in, as data. A stack gets one of these as props and never looks at
 * `process.env` itself: what differs between staging and production is all written here.
 */

export interface StageEnvironment {
  /** @default - environment-agnostic: resolved by CloudFormation at deploy time */
  readonly account?: string;
  /** @default - environment-agnostic: resolved by CloudFormation at deploy time */
  readonly region?: string;
}

export interface AlarmThresholds {
  /** Share of API requests answered with a 5xx (0..1), averaged over a period. */
  readonly serverErrorRate: number;
  /** p99 of API Gateway `Latency` (client-facing, authorizer included), in milliseconds. */
  readonly p99LatencyMs: number;
  /** Lambda `Errors` of one handler in a period: crashes and timeouts (handled errors are responses). */
  readonly functionErrors: number;
  /** Lambda `Throttles` of one function in a period. */
  readonly functionThrottles: number;
  /** Authorizer failures in a period: errors it logged, not refused keys. */
  readonly authorizerFailures: number;
  /** Read plus write throttle events of one table in a period. */
  readonly tableThrottles: number;
  /** 5xx answers one function gives in a deployment alarm period (each is a line logged at ERROR). */
  readonly functionServerErrors: number;
  /** p99 Lambda `Duration` of one function through its `live` alias, in milliseconds. */
  readonly functionP99DurationMs: number;
  /** Length of one evaluation period, in minutes. */
  readonly periodMinutes: number;
  /**
   * Length of one period of the deployment alarms (each function's, on its `live` alias, watched
   * by CodeDeploy), in minutes: short, so that `datapointsToAlarm` breaching periods fit inside a
   * canary's 5 minutes and a bad version is rolled back before it takes all the traffic.
   */
  readonly deploymentPeriodMinutes: number;
  /** How many periods are evaluated. */
  readonly evaluationPeriods: number;
  /** How many of the evaluated periods must breach to alarm; at most `evaluationPeriods`. */
  readonly datapointsToAlarm: number;
}

export interface DataProtection {
  /** DynamoDB refuses to delete a table while this is on. */
  readonly deletionProtection: boolean;
  /** DynamoDB point-in-time recovery (35 days) on every table. */
  readonly pointInTimeRecovery: boolean;
  /** What happens to tables and logs when the stack, or the resource, is deleted. */
  readonly removalPolicy: RemovalPolicy;
  /** CloudFormation refuses to delete the stack until this is turned off. */
  readonly terminationProtection: boolean;
}

export interface StageConfig {
  /** The stage's name: its stack is `PetStore-<name>`, its metrics carry it. */
  readonly name: StageName;
  /** Where the stage deploys. */
  readonly env: StageEnvironment;
  /** API Gateway stage throttling: steady requests per second, and the burst above it. */
  readonly throttling: { readonly rateLimit: number; readonly burstLimit: number };
  /** Retention of function logs and API access logs. */
  readonly logRetention: RetentionDays;
  /** `POWERTOOLS_LOG_LEVEL` of every function. */
  readonly logLevel: LogLevel;
  /** When the stage's alarms fire (infra/constructs/monitoring.ts). */
  readonly alarms: AlarmThresholds;
  /**
   * How long API Gateway reuses an authorizer decision for the same token. It is also how long a
   * revoked key keeps working: at most 60 s in every stage (docs/deploy.md, API keys; the infra
   * tests hold every stage to it). The authorizer reads keys strongly consistently, so the TTL is the whole delay.
   */
  readonly authorizerCacheTtlSeconds: number;
  /**
   * How CodeDeploy shifts each function's traffic from the version in service to a new one (a
   * canary or all at once); a deployment alarm firing meanwhile rolls it back.
   */
  readonly deployment: ILambdaDeploymentConfig;
  /** What protects the stage's data, and what happens to it when the stack is deleted. */
  readonly dataProtection: DataProtection;
  /**
   * Web origins whose pages may call the API from a browser (CORS): exact origins such as
   * `https://app.example.com`; none for an API only servers call. With one origin, API Gateway's
   * own errors (401, 429…) are readable by that page too; with several, only the functions'
   * answers are (docs/deploy.md, "CORS").
   */
  readonly allowedOrigins: readonly string[];
}

const STAGING: Omit<StageConfig, 'env'> = {
  name: 'staging',
  throttling: { rateLimit: 20, burstLimit: 40 },
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
    periodMinutes: 5,
    deploymentPeriodMinutes: 1,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
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
};

const PRODUCTION: Omit<StageConfig, 'env'> = {
  name: 'production',
  throttling: { rateLimit: 100, burstLimit: 200 },
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
    periodMinutes: 5,
    deploymentPeriodMinutes: 1,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
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
};

export const STAGE_DEFAULTS: Readonly<Record<StageName, Omit<StageConfig, 'env'>>> = {
  staging: STAGING,
  production: PRODUCTION,
};

/** Where a stage's account and region come from: CDK context first, then the CLI's defaults. */
export interface EnvironmentSources {
  /** CDK context, e.g. `-c production:account=111122223333 -c production:region=eu-west-1`. */
  readonly context: (key: string) => unknown;
  /** The process environment (`CDK_DEFAULT_ACCOUNT`, `CDK_DEFAULT_REGION`, set by the CDK CLI). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** Account and region of a stage: context `<stage>:account` / `<stage>:region`, else the CLI defaults. */
export const stageEnvironment = (stage: StageName, sources: EnvironmentSources): StageEnvironment => {
  const account = nonEmpty(sources.context(`${stage}:account`)) ?? nonEmpty(sources.env.CDK_DEFAULT_ACCOUNT);
  const region = nonEmpty(sources.context(`${stage}:region`)) ?? nonEmpty(sources.env.CDK_DEFAULT_REGION);
  return { ...(account ? { account } : {}), ...(region ? { region } : {}) };
};

/** Every stage, complete with its environment. */
export const resolveStages = (sources: EnvironmentSources): StageConfig[] =>
  STAGE_NAMES.map((name) => ({
    ...STAGE_DEFAULTS[name],
    env: stageEnvironment(name, sources),
  }));
