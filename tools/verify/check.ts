import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import type { StageConfig } from '#infra/stages';
import type { DeployedStack } from '#tools/verify/deployed-stack';

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

export interface VerifyClients {
  readonly cloudFormation: CloudFormationClient;
  readonly cloudWatch: CloudWatchClient;
  readonly logs: CloudWatchLogsClient;
  readonly apiGateway: APIGatewayClient;
  readonly codeDeploy: CodeDeployClient;
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
}

export const pass = (line: string): Finding => ({ status: 'pass', line });
export const fail = (line: string): Finding => ({ status: 'fail', line });
export const skip = (line: string): Finding => ({ status: 'skip', line });

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const nameOf = (error: unknown): string => (error instanceof Error ? error.name : String(error));

export const list = (items: readonly string[]): string => items.join(', ');

/**
 * The check `name`: its finding, or the results it names itself. One that could not read what it
 * needed fails saying which error AWS gave, never the whole run.
 */
export const check =
  (name: string, run: (context: VerifyContext) => Promise<Finding | CheckResult[]>) =>
  async (context: VerifyContext): Promise<CheckResult[]> => {
    try {
      const found = await run(context);
      return Array.isArray(found) ? found : [{ name, ...found }];
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return [
        {
          name,
          ...fail(
            `could not read it (${nameOf(error)}: ${message}); the caller needs the read permissions of docs/deploy.md, "What verify needs"`,
          ),
        },
      ];
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
