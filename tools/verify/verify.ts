import { parseArgs } from 'node:util';
import { parseStageName, stackName } from '#infra/stage-names';
import { stageDefaults } from '#infra/stages';
import {
  awsUserError,
  CONSOLE,
  type CommandIo,
  checkAwsSetup,
  isEntry,
  parsing,
  runCommand,
  USER_ERROR_EXIT,
  UsageError,
  wantsHelp,
} from '#tools/command';
import { accessLogAndLedger, CONFIRMED_ROWS } from '#tools/verify/access-log-checks';
import { alarmNotification } from '#tools/verify/alarm-check';
import {
  type CheckResult,
  createClients,
  deployedShape,
  readDeployedStack,
  type VerifyClients,
  type VerifyContext,
} from '#tools/verify/check';
import { eventsReachTheBus, RULE_SETTLES_MS } from '#tools/verify/event-check';
import { rowsToConfirm } from '#tools/verify/ledger';
import { authorizer, canary, gatewayResponses, stageThrottle, usagePlans } from '#tools/verify/stage-checks';

/** `npm run verify -- --stage <stage>` (USAGE): reads only, but the alarm check's two `SetAlarmState`s. */

export const USAGE = `Usage: npm run verify -- --stage <stage> [--region <region>] [--alarm-wait-seconds <s>] [--alarm] [--key <API key> [--event-wait-seconds <s>]]
<stage>: staging, production or dev-<name>; the stack PetStore-<stage> in your credentials' account.
Reads the stack (CloudFormation, API Gateway, CodeDeploy, CloudWatch, CloudWatch Logs); writes
one alarm's state, to ALARM and back to OK, to see its notification delivered: on production only
with --alarm, since its subscribers are paged. With --key (a key of the stage), also creates a pet
and sees its PetCreated reach the stage's bus through a rule and a queue made for it; the pet,
the rule and the queue are removed after.`;

const parse = (argv: readonly string[]) => {
  const { values } = parsing(() =>
    parseArgs({
      args: [...argv],
      options: {
        stage: { type: 'string' },
        region: { type: 'string' },
        'alarm-wait-seconds': { type: 'string', default: '120' },
        alarm: { type: 'boolean' },
        key: { type: 'string' },
        'event-wait-seconds': { type: 'string', default: '120' },
      },
    }),
  );
  if (values.stage === undefined) throw new UsageError(`--stage is required. ${USAGE}`);
  const wait = values['alarm-wait-seconds'];
  const seconds = Number(wait);
  if (!(Number.isInteger(seconds) && seconds > 0))
    throw new UsageError(`--alarm-wait-seconds must be a whole number of seconds, not "${wait}".`);
  const eventWait = Number(values['event-wait-seconds']);
  if (!(Number.isInteger(eventWait) && eventWait > 0))
    throw new UsageError(
      `--event-wait-seconds must be a whole number of seconds, not "${values['event-wait-seconds']}".`,
    );
  const stage = parsing(() => parseStageName(values.stage, '--stage'));
  return {
    stage,
    region: values.region,
    alarmWaitMs: seconds * 1000,
    tryAlarm: values.alarm ?? stage !== 'production',
    ...(values.key ? { apiKey: values.key } : {}),
    eventWaitMs: eventWait * 1000,
  };
};

/** The ledger's rows to confirm that no read-only call can: each with the ledger's own way to confirm it. */
const byHandRows = (): CheckResult[] => {
  const automated: readonly string[] = Object.values(CONFIRMED_ROWS);
  return rowsToConfirm()
    .filter((row) => !automated.some((start) => row.behaviour.startsWith(start)))
    .map((row) => ({
      status: 'by hand',
      name: `ledger: ${row.behaviour}`,
      line: `to confirm by hand: ${row.confirmedBy}`,
    }));
};

/** Every check in order: the reads, then the alarm and the event (their writes), then the rows to confirm by hand. */
const runChecks = async (context: VerifyContext): Promise<CheckResult[]> => {
  const readOnly = await Promise.all(
    [stageThrottle, authorizer, gatewayResponses, usagePlans, canary, accessLogAndLedger].map((check) =>
      check(context),
    ),
  );
  const [alarm, event] = await Promise.all([alarmNotification(context), eventsReachTheBus(context)]);
  return [...readOnly.flat(), ...alarm, ...event, ...byHandRows()];
};

/** One line a check: its status, its name, what it found and what to do. */
const formatResult = ({ status, name, line }: CheckResult): string =>
  `${status.toUpperCase().padEnd(7)} ${name}: ${line}`;

/**
 * `npm run verify`: resolves to the exit code; every failure to start, a user's to fix (a bad
 * argument, no credentials, no network, no such stack), is one line on stderr and exit 2.
 */
export const main = async (
  argv: readonly string[],
  io: CommandIo = CONSOLE,
  /** @default createClients (the caller's AWS account) */
  clientsFor: (region?: string) => VerifyClients = createClients,
  /** How long a rule made for the events check is given before the write. @default RULE_SETTLES_MS */
  ruleSettlesMs = RULE_SETTLES_MS,
): Promise<number> => {
  if (wantsHelp(argv)) {
    io.out(USAGE);
    return 0;
  }
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(error.message);
    return USER_ERROR_EXIT;
  }
  const { stage, region, ...choices } = args;
  const clients = clientsFor(region);
  let results: CheckResult[];
  try {
    await checkAwsSetup(clients.cloudFormation);
    const stack = await readDeployedStack(clients.cloudFormation, stage);
    io.out(`Verifying ${stack.name} in ${await clients.cloudFormation.config.region()}`);
    results = await runChecks({
      clients,
      stack,
      config: stageDefaults(stage, deployedShape(stack)),
      ruleSettlesMs,
      ...choices,
    });
  } catch (error) {
    const doing = `reading stack ${stackName(stage)}`;
    const userError = awsUserError(error, { doing, region: await regionOf(clients) });
    if (!userError) throw error;
    io.err(`Cannot verify: ${userError.message}`);
    return USER_ERROR_EXIT;
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

/** The region the clients resolved, if they could: for what a failure says. */
const regionOf = (clients: VerifyClients): Promise<string | undefined> =>
  clients.cloudFormation.config.region().catch(() => undefined);

if (isEntry(import.meta.url)) await runCommand((argv) => main(argv));
