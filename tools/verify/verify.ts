import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { parseStageName, StageNameError } from '#infra/stage-names';
import { stageDefaults } from '#infra/stages';
import { AwsSetupError, checkAwsSetup } from '#tools/aws-setup';
import type { CheckResult, VerifyClients } from '#tools/verify/check';
import { formatResult, runChecks } from '#tools/verify/checks';
import { readDeployedStack } from '#tools/verify/deployed-stack';

/**
 * `npm run verify -- --stage <stage>` (USAGE): after a deployment, what only AWS can show, read
 * with the caller's credentials. One line a check; exits 1 when a check fails, 2 when it cannot
 * run (no stack, no credentials, a bad argument).
 */

export const USAGE = `Usage: npm run verify -- --stage <stage> [--region <region>] [--alarm-wait-seconds <s>] [--alarm]
<stage>: staging, production or dev-<name>; the stack PetStore-<stage> in your credentials' account.
Reads the stack (CloudFormation, API Gateway, CodeDeploy, CloudWatch, CloudWatch Logs); writes only
one alarm's state, to ALARM and back to OK, to see its notification delivered: on production only
with --alarm, since its subscribers are paged.`;

export interface VerifyIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const parse = (argv: readonly string[]) => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      stage: { type: 'string' },
      region: { type: 'string' },
      'alarm-wait-seconds': { type: 'string', default: '120' },
      alarm: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (values.stage === undefined) throw new StageNameError(`--stage is required. ${USAGE}`);
  const wait = values['alarm-wait-seconds'];
  const seconds = Number(wait);
  if (!(Number.isInteger(seconds) && seconds > 0))
    throw new StageNameError(`--alarm-wait-seconds must be a whole number of seconds, not "${wait}".`);
  const stage = parseStageName(values.stage, '--stage');
  return {
    stage,
    region: values.region,
    alarmWaitMs: seconds * 1000,
    tryAlarm: values.alarm ?? stage !== 'production',
  };
};

/** The SDK clients of the caller's credentials and region (`--region`, else AWS_REGION or the profile's). */
export const createClients = (region?: string): VerifyClients => {
  const config = region ? { region } : {};
  return {
    cloudFormation: new CloudFormationClient(config),
    cloudWatch: new CloudWatchClient(config),
    logs: new CloudWatchLogsClient(config),
    apiGateway: new APIGatewayClient(config),
    codeDeploy: new CodeDeployClient(config),
  };
};

/** `npm run verify`: resolves to the exit code; every failure to start is one line on stderr. */
export const main = async (
  argv: readonly string[],
  io: VerifyIo = { out: (line) => console.log(line), err: (line) => console.error(line) },
  /** @default createClients (the caller's AWS account) */
  clientsFor: (region?: string) => VerifyClients = createClients,
): Promise<number> => {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    io.err(error instanceof Error ? error.message : String(error));
    return 2;
  }
  if (args === 'help') {
    io.out(USAGE);
    return 0;
  }
  const { stage, region, ...choices } = args;
  const clients = clientsFor(region);
  let results: CheckResult[];
  try {
    await checkAwsSetup(clients.cloudFormation);
    const stack = await readDeployedStack(clients.cloudFormation, stage);
    io.out(`Verifying ${stack.name} in ${await clients.cloudFormation.config.region()}`);
    results = await runChecks({ clients, stack, config: stageDefaults(stage), ...choices });
  } catch (error) {
    if (!(error instanceof AwsSetupError)) throw error;
    io.err(`Cannot verify: ${error.message}`);
    return 2;
  } finally {
    for (const client of Object.values(clients)) client.destroy();
  }
  for (const result of results) io.out(formatResult(result));
  const failed = results.filter((result) => result.status === 'fail').length;
  io.out(
    failed === 0
      ? 'Every check passed; the ledger rows marked BY HAND are yours to confirm once.'
      : `${failed} check(s) failed.`,
  );
  return failed === 0 ? 0 : 1;
};

const entry = process.argv[1];
if (entry && realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))) {
  process.exitCode = await main(process.argv.slice(2));
}
