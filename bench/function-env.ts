import { STAGE_PLANS } from '#infra/stage-plans';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { ENV } from '#shared/config';
import { SERVICE_NAME } from '#shared/observability/logger';
import { METRICS_NAMESPACE } from '#shared/observability/metrics';
import { targetOf } from './functions';
import type { BenchFunction } from './lambda-events';

/**
 * The environment a function process gets in the benchmark: what the stack sets in Lambda
 * (infra/constructs/api-function.ts: `NODE_OPTIONS=--enable-source-maps`, production's log level
 * INFO, metrics on, the stage; infra/pet-store-stack.ts: the variables of exactly the tables the
 * function uses, and the authorizer's plans) plus the DynamoDB Local endpoint. Built from scratch, not inherited, so that
 * nothing of the bench's own process (a loader, a test runner's variables) leaks into what is
 * measured. Service and baseline always get the same environment.
 */
export const functionEnvironment = ({
  endpoint,
  names,
  functionName,
  sourceMaps = true,
}: {
  endpoint: string;
  names: TableNames;
  functionName: BenchFunction;
  sourceMaps?: boolean;
}): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
  AWS_REGION: 'us-east-1',
  AWS_LAMBDA_FUNCTION_NAME: functionName,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
  // What Lambda sets in an on-demand function: Powertools counts a cold start (its ColdStart
  // metric, the logs' cold_start) only then, so without it the first call did less than in Lambda.
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  // The SDK warns at every start on a Node older than it wants (Node 20, when the children fall
  // back to this machine's); on the Lambda's Node 24 it has nothing to say, so this changes nothing.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_EC2_METADATA_DISABLED: 'true',
  [ENV.serviceName]: SERVICE_NAME,
  [ENV.logLevel]: 'INFO',
  [ENV.metricsNamespace]: METRICS_NAMESPACE,
  [ENV.stage]: 'production',
  [ENV.dynamoDbEndpoint]: endpoint,
  ...Object.fromEntries(targetOf(functionName).tables.map((table) => [ENV.tables[table], names[table]])),
  // The stack gives the authorizer the stage's plans (infra/constructs/usage-plans.ts).
  ...(functionName === 'authorizer' ? { [ENV.plans]: JSON.stringify(STAGE_PLANS.production) } : {}),
});
