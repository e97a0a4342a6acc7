import { parseArgs } from 'node:util';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { parseStageName, stackName } from '#infra/stage-names';
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
  UserError,
  wantsHelp,
} from '#tools/command';
import { describeStack } from '#tools/deploy/stack-outputs';

/** `npm run -s outputs -- --stage <stage> [<name>]`: a deployed stack's outputs, read from CloudFormation. */

export const USAGE = `Usage: npm run -s outputs -- --stage <stage> [--region <region>] [<name>]
The outputs of the stack PetStore-<stage> (docs/deploy.md, "Outputs"), one "<name> <value>" line each;
given a <name> (ApiUrl, ApiKeysTableName…), its value alone, for a shell variable:
  API=$(npm run -s outputs -- --stage dev-ann ApiUrl)`;

const parse = (argv: readonly string[]) => {
  const { values, positionals } = parsing(() =>
    parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { stage: { type: 'string' }, region: { type: 'string' } },
    }),
  );
  if (values.stage === undefined) throw new UsageError(`--stage is required. ${USAGE}`);
  if (positionals.length > 1) throw new UsageError(`One output name at most, not ${positionals.join(' ')}.`);
  return {
    stage: parsing(() => parseStageName(values.stage, '--stage')),
    region: values.region,
    name: positionals[0],
  };
};

const createClient = async (region?: string): Promise<CloudFormationClient> => {
  const { CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
  return new CloudFormationClient({ ...(region ? { region } : {}), maxAttempts: 2 });
};

/** `npm run outputs`: resolves to the exit code; what the user can fix is one line and exit 2. */
export const main = async (
  argv: readonly string[],
  io: CommandIo = CONSOLE,
  /** @default a CloudFormation client of the caller's credentials */
  clientFor: (region?: string) => Promise<CloudFormationClient> = createClient,
): Promise<number> => {
  if (wantsHelp(argv)) {
    io.out(USAGE);
    return 0;
  }
  let client: CloudFormationClient | undefined;
  try {
    const { stage, region, name } = parse(argv);
    client = await clientFor(region);
    await checkAwsSetup(client);
    const { outputs } = await describeStack(client, stage);
    if (name === undefined) {
      for (const [key, value] of Object.entries(outputs)) io.out(`${key} ${value}`);
      return 0;
    }
    const value = outputs[name];
    if (value === undefined)
      throw new UserError(
        `${stackName(stage)} has no output ${name}: it has ${Object.keys(outputs).join(', ')}.`,
      );
    io.out(value);
    return 0;
  } catch (error) {
    const region = await client?.config.region().catch(() => undefined);
    const userError = awsUserError(error, { doing: 'reading the stack', ...(region ? { region } : {}) });
    if (!userError) throw error;
    io.err(`Cannot read the outputs: ${userError.message}`);
    return USER_ERROR_EXIT;
  } finally {
    client?.destroy();
  }
};

if (isEntry(import.meta.url)) await runCommand((argv) => main(argv));
