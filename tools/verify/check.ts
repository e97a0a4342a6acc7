import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import {
  CloudFormationClient,
  paginateListStackResources,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { OUTPUT } from '#infra/outputs';
import type { AnyStageName, StackShape } from '#infra/stage-names';
import type { StageConfig } from '#infra/stages';
import { describe } from '#tools/command';
import { describeStack } from '#tools/deploy/stack-outputs';

/** What every check of `npm run verify` is given and gives back, and the helpers they share. */

export type CheckStatus = 'pass' | 'fail' | 'skip' | 'by hand';

/** What a check found and what to do, in one line. */
export interface Finding {
  readonly status: CheckStatus;
  readonly line: string;
}

export interface CheckResult extends Finding {
  readonly name: string;
}

/** The SDK clients of the caller's credentials and region (`--region`, else AWS_REGION or the profile's). */
export const createClients = (region?: string) => {
  const config = region ? { region } : {};
  return {
    cloudFormation: new CloudFormationClient(config),
    cloudWatch: new CloudWatchClient(config),
    logs: new CloudWatchLogsClient(config),
    apiGateway: new APIGatewayClient(config),
    codeDeploy: new CodeDeployClient(config),
    eventBridge: new EventBridgeClient(config),
    sqs: new SQSClient(config),
  };
};

export type VerifyClients = ReturnType<typeof createClients>;

/** A stack as CloudFormation describes it after a deployment: its outputs and its resources' physical ids. */
export interface DeployedStack {
  readonly name: string;
  readonly outputs: Readonly<Record<string, string>>;
  /** Physical ids of the stack's resources of `type`, e.g. every alarm name of `AWS::CloudWatch::Alarm`. */
  readonly physicalIds: (type: string) => readonly string[];
}

export interface VerifyContext {
  readonly clients: VerifyClients;
  readonly stack: DeployedStack;
  /** What the stage is configured as (infra/stages.ts): what should be deployed. */
  readonly config: Omit<StageConfig, 'env'>;
  /** How long to wait for the tried alarm's action to be recorded. */
  readonly alarmWaitMs: number;
  /** Whether to set an alarm to ALARM to see its notification delivered: its topic's subscribers get the message. */
  readonly tryAlarm: boolean;
  /** A key of the stage, to create a pet and see its event reach the bus (then remove it). @default none: not tried */
  readonly apiKey?: string;
  /** How long to wait for that event. */
  readonly eventWaitMs: number;
  /** How long a new rule is given to take effect before the write. */
  readonly ruleSettlesMs: number;
}

/** `PetStore-<stage>` from CloudFormation: DescribeStacks for its outputs, ListStackResources for the rest. */
export const readDeployedStack = async (
  client: CloudFormationClient,
  stage: AnyStageName,
): Promise<DeployedStack> => {
  const { name, outputs } = await describeStack(client, stage);
  const resources: StackResourceSummary[] = [];
  for await (const page of paginateListStackResources({ client }, { StackName: name }))
    resources.push(...(page.StackResourceSummaries ?? []));
  const physicalIds = (type: string) =>
    resources.flatMap(({ ResourceType, PhysicalResourceId }) =>
      ResourceType === type && PhysicalResourceId ? [PhysicalResourceId] : [],
    );
  return { name, outputs, physicalIds };
};

/** A developer stack's shape, as deployed: a full one has an alarm topic (StackShape). */
export const deployedShape = (stack: DeployedStack): StackShape =>
  stack.outputs[OUTPUT.alarmTopic] ? 'full' : 'lean';

/** What a lean stack leaves out, said by the checks that need it. */
export const leanSkip = (what: string): Finding => ({
  status: 'skip',
  line: `a lean stack has no ${what}: deploy it with --full (npm run deploy -- --stage <stage> --full) to check them`,
});

export const pass = (line: string): Finding => ({ status: 'pass', line });
export const fail = (line: string): Finding => ({ status: 'fail', line });
export const skip = (line: string): Finding => ({ status: 'skip', line });

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const list = (items: readonly string[]): string => items.join(', ');

/** The check `name`'s results; one that cannot read what it needs fails with AWS's error, not the run. */
export const check =
  (name: string, run: (context: VerifyContext) => Promise<Finding | CheckResult[]>) =>
  async (context: VerifyContext): Promise<CheckResult[]> => {
    try {
      const found = await run(context);
      return Array.isArray(found) ? found : [{ name, ...found }];
    } catch (error) {
      const line = `could not read it (${describe(error)}); the caller needs the read permissions of docs/deploy.md, "What verify needs"`;
      return [{ name, ...fail(line) }];
    }
  };

export const restApiIdOf = (stack: DeployedStack): string => {
  const [id] = stack.physicalIds('AWS::ApiGateway::RestApi');
  if (!id) throw new Error(`stack ${stack.name} holds no REST API`);
  return id;
};

export const outputOf = (stack: DeployedStack, key: string): string => {
  const value = stack.outputs[key];
  if (!value) throw new Error(`stack ${stack.name} has no output ${key}`);
  return value;
};

/** `text` as a JSON object (an access log line, an alarm history item's data), or undefined. */
export const parseJsonObject = (text: string): Readonly<Record<string, unknown>> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};
