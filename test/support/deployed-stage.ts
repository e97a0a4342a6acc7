import {
  type APIGatewayClientResolvedConfig,
  type ServiceInputTypes as ApiGatewayInput,
  type ServiceOutputTypes as ApiGatewayOutput,
  GetAuthorizersCommand,
  GetGatewayResponsesCommand,
  GetStageCommand,
  GetUsagePlansCommand,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import {
  type CloudFormationClientResolvedConfig,
  type ServiceInputTypes as CloudFormationInput,
  type ServiceOutputTypes as CloudFormationOutput,
  ListStackResourcesCommand,
} from '@aws-sdk/client-cloudformation';
import {
  type CloudWatchLogsClientResolvedConfig,
  DescribeLogStreamsCommand,
  FilterLogEventsCommand,
  GetLogEventsCommand,
  type ServiceInputTypes as LogsInput,
  type ServiceOutputTypes as LogsOutput,
} from '@aws-sdk/client-cloudwatch-logs';
import type { AwsStub } from 'aws-sdk-client-mock';
import { OPERATIONS } from '#functions/operations';
import { ACCESS_LOG_FIELDS } from '#infra/access-log';
import { DEV_PLANS, usagePlanName } from '#infra/stage-plans';
import { devStage } from '#infra/stages';
import { IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import { GATEWAY_RESPONSES, type GatewayResponseType, gatewayResponse } from '#shared/http/gateway-behaviour';
import { writesData } from '#shared/operations/routes';

/**
 * What AWS answers about a developer's stage (`dev-ann`) deployed as infra/stages.ts says, in the
 * SDK's own response shapes: the reads `npm run verify` makes of the stack, its API and its access
 * log, for aws-sdk-client-mock to answer with.
 */

export const DEV_STACK = 'PetStore-dev-ann';
export const REST_API_ID = 'a1b2c3d4e5';
/** The authorizer invocation the access log's lines name, and its log line carries. */
export const AUTHORIZER_CALL = 'c0ffee00-0000-4000-8000-000000000001';

const DEV = devStage('dev-ann');

/** An access log line as the stack's format writes it. */
export const accessLine = (changes: Record<string, string> = {}): string =>
  JSON.stringify({
    ...Object.fromEntries(Object.keys(ACCESS_LOG_FIELDS).map((field) => [field, '-'])),
    requestId: 'Q2xpZW50SWQxMjM=',
    requestTime: '28/Nov/2026:06:00:00 +0000',
    method: 'GET',
    resourcePath: '/pets',
    status: '200',
    responseLatency: '42',
    authorizerRequestId: AUTHORIZER_CALL,
    ...changes,
  });

/** The stage's usage plans, one per plan of DEV_PLANS, as GetUsagePlans lists them. */
export const usagePlans = (): UsagePlan[] =>
  Object.entries(DEV_PLANS.plans).map(([plan, { rateLimit, burstLimit, quota }]) => ({
    id: `plan-${plan}`,
    name: usagePlanName(DEV_STACK, plan),
    throttle: { rateLimit, burstLimit },
    quota: { limit: quota.limit, period: quota.period, offset: 0 },
    apiStages: [{ apiId: REST_API_ID, stage: 'v1' }],
  }));

export type MethodThrottle = { throttlingRateLimit: number; throttlingBurstLimit: number };

/**
 * GetStage's `methodSettings` as API Gateway keys them (the resource path with `/` as `~1`, then
 * the method): the default of every method, and each write method's own limit.
 */
export const methodSettings = (
  changes: Record<string, MethodThrottle> = {},
): Record<string, MethodThrottle> => ({
  '*/*': { throttlingRateLimit: DEV.throttling.rateLimit, throttlingBurstLimit: DEV.throttling.burstLimit },
  ...Object.fromEntries(
    OPERATIONS.map(({ operation }) => operation)
      .filter(writesData)
      .map(({ path, method }) => [
        `${path.replaceAll('/', '~1')}/${method}`,
        {
          throttlingRateLimit: DEV.writeThrottling.rateLimit,
          throttlingBurstLimit: DEV.writeThrottling.burstLimit,
        },
      ]),
  ),
  ...changes,
});

export interface DeployedStageMocks {
  readonly cloudFormation: AwsStub<
    CloudFormationInput,
    CloudFormationOutput,
    CloudFormationClientResolvedConfig
  >;
  readonly apiGateway: AwsStub<ApiGatewayInput, ApiGatewayOutput, APIGatewayClientResolvedConfig>;
  readonly logs: AwsStub<LogsInput, LogsOutput, CloudWatchLogsClientResolvedConfig>;
}

/**
 * The stack's resources (`[logical id, type, physical id]`, its REST API first), its API's stage,
 * authorizer, gateway responses and usage plans, and its access log's last lines, as deployed.
 */
export const answerAsDeployed = (
  { cloudFormation, apiGateway, logs }: DeployedStageMocks,
  resources: readonly (readonly [string, string, string])[] = [],
): void => {
  cloudFormation.on(ListStackResourcesCommand).resolves({
    StackResourceSummaries: [
      ['ApiCD79AAA0', 'AWS::ApiGateway::RestApi', REST_API_ID] as const,
      ...resources,
    ].map(([LogicalResourceId, ResourceType, PhysicalResourceId]) => ({
      LogicalResourceId,
      ResourceType,
      PhysicalResourceId,
      ResourceStatus: 'CREATE_COMPLETE' as const,
      LastUpdatedTimestamp: new Date(),
    })),
  });
  apiGateway.on(GetStageCommand).resolves({ stageName: 'v1', methodSettings: methodSettings() });
  apiGateway.on(GetAuthorizersCommand).resolves({
    items: [
      {
        id: 'auth1',
        type: 'TOKEN',
        identitySource: 'method.request.header.Authorization',
        identityValidationExpression: IDENTITY_VALIDATION_EXPRESSION,
        authorizerResultTtlInSeconds: DEV.authorizerCacheTtlSeconds,
      },
    ],
  });
  apiGateway.on(GetGatewayResponsesCommand).resolves({
    items: (Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[]).map((responseType) => ({
      responseType,
      statusCode: String(gatewayResponse(responseType).status),
      defaultResponse: false,
    })),
  });
  apiGateway.on(GetUsagePlansCommand).resolves({ items: usagePlans() });
  logs.on(DescribeLogStreamsCommand).resolves({ logStreams: [{ logStreamName: 'stream-1' }] });
  logs.on(GetLogEventsCommand).resolves({
    events: [accessLine(), accessLine({ authorizerRequestId: '-' })].map((message) => ({
      message,
      timestamp: 1,
    })),
  });
  logs.on(FilterLogEventsCommand).resolves({
    events: [{ message: JSON.stringify({ level: 'INFO', function_request_id: AUTHORIZER_CALL }) }],
  });
};
