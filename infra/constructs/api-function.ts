import { join } from 'node:path';
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Architecture, type IFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import {
  type BundlingOptions,
  LogLevel as EsbuildLogLevel,
  NodejsFunction,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { esbuildOptions } from '#infra/bundling';
import { ValidationError } from '#infra/constructs/validation-error';
import { acknowledgeLogGroupRules, controlTowerRule } from '#infra/control-tower';
import { keepOwnSourcesCommand } from '#infra/own-sources-map';
import { PROJECT_ROOT } from '#infra/project-root';
import type { AnyStageName } from '#infra/stage-names';
import type { LogLevel } from '#shared/config';
import { ENV } from '#shared/config';
import { AUTHORIZER_TIMEOUT_SECONDS, HANDLER_TIMEOUT_SECONDS } from '#shared/lambda';
import { SERVICE_NAME } from '#shared/observability/logger';
import { METRICS_NAMESPACE } from '#shared/observability/metrics';

/**
 * The timeout ladder's outer rungs (inner: shared/adapters/dynamodb/client.ts, shared/deadline.ts,
 * shared/http/endpoint.ts): never reached while the deadlines hold, nor is API Gateway's 29 s.
 */
export const HANDLER_TIMEOUT = Duration.seconds(HANDLER_TIMEOUT_SECONDS);
export const AUTHORIZER_TIMEOUT = Duration.seconds(AUTHORIZER_TIMEOUT_SECONDS);

/**
 * CPU follows memory: below it cold starts take several times longer for cents; above, handlers
 * waiting on DynamoDB gain little. To be tuned with AWS Lambda Power Tuning.
 */
export const DEFAULT_MEMORY_MB = 512;

export interface ApiFunctionProps {
  /** Exporting `handler`, relative to the project root. */
  readonly entry: string;
  /** The tests find functions by it. */
  readonly description: string;
  /** At most API Gateway's integration timeout, 29 s. @default HANDLER_TIMEOUT */
  readonly timeout?: Duration;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly logLevel: LogLevel;
  /** Tags its metrics, so stages sharing an account keep apart. */
  readonly stage: AnyStageName;
  /**
   * Publishes a version of each change behind a `live` alias, which API Gateway invokes and
   * CodeDeploy shifts: what gradual deployments need, and nothing else does. Without it, API
   * Gateway invokes the function itself.
   */
  readonly live: boolean;
  /**
   * Where it logs: a group of its own by default; the functions of a lean stack share one (its
   * lines carry `function_name`), which is made, kept and removed as a function's own is.
   */
  readonly logGroup?: LogGroup;
}

/** The bench's too. No `--enable-source-maps` (docs/decisions/0002-no-runtime-source-maps.md). */
export const functionEnvironment = (logLevel: LogLevel, stage: AnyStageName): Record<string, string> => ({
  [ENV.serviceName]: SERVICE_NAME,
  [ENV.logLevel]: logLevel,
  [ENV.metricsNamespace]: METRICS_NAMESPACE,
  [ENV.stage]: stage,
});

/** `esbuildOptions` as NodejsFunction props (never Docker); the infra tests hold the two equal. */
export const nodejsBundling = (): BundlingOptions => {
  const options = esbuildOptions('<entry>', '<outfile>');
  return {
    format: OutputFormat.ESM,
    target: options.target,
    mainFields: [...options.mainFields],
    banner: options.banner.js,
    minify: options.minify,
    sourceMap: options.sourcemap,
    sourcesContent: options.sourcesContent,
    // An explicit empty list is what makes NodejsFunction bundle the AWS SDK too.
    externalModules: [...options.external],
    esbuildArgs: { '--alias': Object.entries(options.alias).map(([from, to]) => `${from}=${to}`) },
    logLevel: EsbuildLogLevel.WARNING,
    forceDockerBundling: false,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir, outputDir) => [keepOwnSourcesCommand(join(outputDir, 'index.mjs.map'))],
    },
  };
};

const API_GATEWAY_INTEGRATION_TIMEOUT = Duration.seconds(29);

/** A Lambda function with the house defaults, published behind `live` when it is deployed gradually. */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  /** Not AWSLambdaBasicExecutionRole, which may write any log group in the account: its own only. */
  readonly role: Role;
  /** What invokes it (API Gateway, an event source mapping) invokes: the `live` alias when there is one, else the function. */
  readonly invoked: IFunction;

  private readonly liveAlias: Alias | undefined;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const timeout = props.timeout ?? HANDLER_TIMEOUT;
    if (timeout.toSeconds() > API_GATEWAY_INTEGRATION_TIMEOUT.toSeconds()) {
      throw new ValidationError(
        `timeout ${timeout.toSeconds()} s exceeds API Gateway's integration timeout (${API_GATEWAY_INTEGRATION_TIMEOUT.toSeconds()} s): clients would get a 504 instead of the function's answer`,
        this,
      );
    }
    this.logGroup =
      props.logGroup ??
      new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy });
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);
    this.function = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: DEFAULT_MEMORY_MB,
      timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role: this.role,
      bundling: nodejsBundling(),
      environment: functionEnvironment(props.logLevel, props.stage),
    });
    // `currentVersion` makes the version resource: only a function behind `live` gets one.
    this.liveAlias = props.live
      ? new Alias(this, 'Live', { aliasName: 'live', version: this.function.currentVersion })
      : undefined;
    this.invoked = this.liveAlias ?? this.function;
    this.acknowledgeFindings();
  }

  /**
   * What API Gateway invokes and CodeDeploy moves. A replaced version is deleted once the stack update
   * completes: going back further than one deployment is deploying an older commit (docs/operate.md).
   */
  get alias(): Alias {
    if (!this.liveAlias)
      throw new ValidationError(
        'no live alias (props.live is false): only a function deployed gradually has one, and its alarms and deployment group watch it',
        this,
      );
    return this.liveAlias;
  }

  private acknowledgeFindings(): void {
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support ' +
        'resource-level permissions, so CDK grants them on "*" (the only wildcard in this role).',
    });
    if (this.logGroup.node.scope === this) acknowledgeLogGroupRules(this.logGroup);
    Validations.of(this.function).acknowledge({
      id: controlTowerRule('lambda_inside_vpc_check'),
      reason:
        'The functions reach nothing private: only DynamoDB and CloudWatch, over TLS to AWS ' +
        'endpoints with IAM authentication. A VPC would need NAT or VPC endpoints (a cost per ' +
        'hour and AZ) and slow cold starts, to protect no resource that lives in it.',
    });
  }
}
