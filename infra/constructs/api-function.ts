import { join } from 'node:path';
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { nodejsBundling } from '#infra/bundling';
import { ValidationError } from '#infra/constructs/validation-error';
import { acknowledgeLogGroupRules, controlTowerRule } from '#infra/control-tower';
import { PROJECT_ROOT } from '#infra/project-root';
import type { AnyStageName } from '#infra/stage-names';
import type { LogLevel } from '#shared/config';
import { ENV } from '#shared/config';
import { AUTHORIZER_TIMEOUT_SECONDS, HANDLER_TIMEOUT_SECONDS } from '#shared/lambda';
import { SERVICE_NAME } from '#shared/observability/logger';
import { METRICS_NAMESPACE } from '#shared/observability/metrics';

/**
 * The timeout ladder's outer rungs (its inner ones: shared/adapters/dynamodb/client.ts and
 * shared/deadline.ts, a 503 within 4 s): a handler has 15 s, never reached while the deadline
 * holds (middy answers 503 500 ms before it, shared/http/endpoint.ts); the authorizer 6 s, its
 * lookup over by 3 s (a failure is AUTHORIZER_CONFIGURATION_ERROR, 503 with Retry-After); API
 * Gateway's integration timeout, 29 s, is never reached.
 */
export const HANDLER_TIMEOUT = Duration.seconds(HANDLER_TIMEOUT_SECONDS);
export const AUTHORIZER_TIMEOUT = Duration.seconds(AUTHORIZER_TIMEOUT_SECONDS);

/**
 * Lambda gives CPU in proportion to memory, and the functions' CPU-bound part is the cold start: at
 * 128–256 MB it takes several times longer for a few cents saved; above 512 MB a handler that mostly
 * waits for DynamoDB gains little. To be tuned with measured durations (AWS Lambda Power Tuning).
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
  /** Tags the function's metrics, so stages sharing an account keep apart. */
  readonly stage: AnyStageName;
}

/**
 * The variables every function gets (the bench's too). No `NODE_OPTIONS=--enable-source-maps`:
 * Node would walk the whole map at every cold start (docs/decisions/0002-no-runtime-source-maps.md).
 */
export const functionEnvironment = (logLevel: LogLevel, stage: AnyStageName): Record<string, string> => ({
  [ENV.serviceName]: SERVICE_NAME,
  [ENV.logLevel]: logLevel,
  [ENV.metricsNamespace]: METRICS_NAMESPACE,
  [ENV.stage]: stage,
});

/** API Gateway's integration timeout: a function allowed longer would be cut off by a 504. */
const API_GATEWAY_INTEGRATION_TIMEOUT = Duration.seconds(29);

/**
 * A Lambda function with the house defaults: Node.js 24 on arm64, the bundle of `infra/bundling.ts`,
 * X-Ray tracing, a log group of its own that its role alone can write, published behind `live`.
 */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  /**
   * A role of its own instead of AWSLambdaBasicExecutionRole: that managed policy may create and
   * write any log group in the account; this role writes to its one log group only.
   */
  readonly role: Role;
  /**
   * `live`, which API Gateway invokes and CodeDeploy moves on each deployment. Each change
   * publishes a new version (kept when replaced, so traffic can go back to it).
   */
  readonly alias: Alias;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const timeout = props.timeout ?? HANDLER_TIMEOUT;
    // The timeout ladder's outer rungs: a function API Gateway would give up on first fails the synth.
    if (timeout.toSeconds() > API_GATEWAY_INTEGRATION_TIMEOUT.toSeconds()) {
      throw new ValidationError(
        `timeout ${timeout.toSeconds()} s exceeds API Gateway's integration timeout (${API_GATEWAY_INTEGRATION_TIMEOUT.toSeconds()} s): clients would get a 504 instead of the function's answer`,
        this,
      );
    }
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
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
    this.alias = new Alias(this, 'Live', { aliasName: 'live', version: this.function.currentVersion });
    this.acknowledgeFindings();
  }

  private acknowledgeFindings(): void {
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support ' +
        'resource-level permissions, so CDK grants them on "*" (the only wildcard in this role).',
    });
    acknowledgeLogGroupRules(this.logGroup);
    Validations.of(this.function).acknowledge({
      id: controlTowerRule('lambda_inside_vpc_check'),
      reason:
        'The functions reach nothing private: only DynamoDB and CloudWatch, over TLS to AWS ' +
        'endpoints with IAM authentication. A VPC would need NAT or VPC endpoints (a cost per ' +
        'hour and AZ) and slow cold starts, to protect no resource that lives in it.',
    });
  }
}
