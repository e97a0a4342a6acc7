import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { STAGE_NAMES, type StageName, stackName } from '#infra/stage-names';

/**
 * What the operator commands that work on one table of a stage share (`npm run keys`,
 * `npm run backfill:status-shards`): the options that name the table and how to reach it, their
 * checks, and the AWS set-up a command needs before its first call.
 */

/** A command line that cannot be run: the message says what is wrong, the usage follows. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** What the command needs from this machine's AWS setup and does not find there. */
export class SetupError extends Error {
  override readonly name = 'SetupError';
}

/** The table a command works on, and how to reach it. */
export interface TableTarget {
  readonly table: string;
  readonly stage?: StageName;
  readonly region?: string;
  readonly endpoint?: string;
}

/** The `node:util` parseArgs options that name a table target. */
export const TABLE_TARGET_OPTIONS = {
  table: { type: 'string' },
  stage: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
} as const;

const isStage = (value: string): value is StageName => (STAGE_NAMES as readonly string[]).includes(value);

/**
 * The target the options name, checked: a known stage, a table (`tableOutput` names the stack
 * output to copy it from), a table of that stage's stack, an http(s) endpoint.
 */
export const tableTargetOf = (
  values: {
    readonly table?: string | undefined;
    readonly stage?: string | undefined;
    readonly region?: string | undefined;
    readonly endpoint?: string | undefined;
  },
  tableOutput: string,
): TableTarget => {
  const { table, stage, region, endpoint } = values;
  if (stage !== undefined && !isStage(stage))
    throw new UsageError(`--stage must be one of ${STAGE_NAMES.join(', ')}, not "${stage}"`);
  if (!table) {
    throw new UsageError(
      stage
        ? `--table is required: the ${tableOutput} output of stack ${stackName(stage)}`
        : '--table is required',
    );
  }
  // CloudFormation names a table after its stack: a command meant for staging never touches production.
  if (stage && !table.startsWith(`${stackName(stage)}-`))
    throw new UsageError(`Table "${table}" does not belong to stack ${stackName(stage)}`);
  if (endpoint !== undefined && !/^https?:\/\/\S+$/.test(endpoint))
    throw new UsageError(`--endpoint must be an http(s) URL, not "${endpoint}"`);
  return {
    table,
    ...(stage ? { stage } : {}),
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
  };
};

/**
 * An operator's laptop may be far from the region (TLS set-up alone can take a second), so the
 * commands allow more than the functions' 1 s per attempt; but a stalled network still ends them.
 */
export const OPERATOR_TIME_BUDGET = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 5_000, requestTimeout: 10_000, throwOnRequestTimeout: true },
} as const;

/**
 * Resolves the client's region, then its credentials, as its first call would, and says which
 * setting is missing instead of the SDK's own error from deep inside that call.
 */
export const checkAwsSetup = async (client: DynamoDBClient): Promise<void> => {
  try {
    await client.config.region();
  } catch {
    throw new SetupError(
      'No AWS region: give --region <region> (the stack’s region), or set AWS_REGION, or AWS_PROFILE to a profile that names one.',
    );
  }
  try {
    await client.config.credentials();
  } catch {
    throw new SetupError(
      'No AWS credentials: set AWS_PROFILE to a signed-in profile (aws sso login --profile <name>), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    );
  }
};
