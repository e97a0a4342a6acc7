import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { PROJECT_ROOT } from '#infra/project-root';
import {
  type AnyStageName,
  isDevStageName,
  parseStageName,
  SHAPE_SETTING,
  STAGE_SETTING,
  StageNameError,
  stackName,
} from '#infra/stage-names';
import {
  AwsSetupError,
  awsUserError,
  CONSOLE,
  type CommandIo,
  checkAwsSetup,
  isEntry,
  parsing,
  runCommand,
  USER_ERROR_EXIT,
  UserError,
  wantsHelp,
} from '#tools/command';
import { describeStack } from '#tools/deploy/stack-outputs';

/**
 * `npm run deploy|destroy -- --stage <stage> [--full] [cdk options]`: the AWS setup checked first
 * (a region, credentials that work, the CDK's bootstrap, API Gateway's CloudWatch Logs role), in
 * seconds and before anything is synthesized; then `cdk -c stage=<stage>`, the rest as is; then,
 * after a deployment, the stack's outputs read back from CloudFormation.
 */

export const USAGE = `Usage: npm run deploy -- --stage <stage> [--full] [cdk deploy options]
       npm run destroy -- --stage <stage> [cdk destroy options]
<stage>: dev-<name> (your own stack, PetStore-dev-<name>; <name> is lowercase letters and digits), staging or production.
--full: a stack of your own with what operating production needs (alarms, their topic, the dashboard,
        gradual deployments), to rehearse them; without it, the service alone.
Before cdk runs, deploy checks the AWS region and credentials (AWS_REGION, AWS_PROFILE after aws sso login),
the CDK's bootstrap stack and API Gateway's CloudWatch Logs role of the account and region.`;

export type CdkAction = 'deploy' | 'destroy';

/** What `npm run deploy` or `destroy` was asked to do. */
export interface DeployPlan {
  readonly action: CdkAction;
  readonly stage: AnyStageName;
  readonly cdkArgs: readonly string[];
  /** The CDK's bootstrap stack: `CDKToolkit` unless `--toolkit-stack-name` names another. */
  readonly toolkitStack: string;
  /** The stage names its account or region in the CDK context: cdk, not the credentials, says where it goes. */
  readonly pinned: boolean;
}

/** The CDK's default bootstrap stack ("Bootstrapping your environment for use with the AWS CDK"). */
const TOOLKIT_STACK = 'CDKToolkit';

/** Whether the context (cdk.json's, or `-c` in `rest`) names an account or region for `stage`. */
const isPinned = (
  stage: AnyStageName,
  rest: readonly string[],
  cdkContext: Readonly<Record<string, unknown>>,
): boolean => {
  const keys = [`${stage}:account`, `${stage}:region`];
  const given = rest.flatMap((argument, index) =>
    argument === '-c' || argument === '--context' ? [rest[index + 1] ?? ''] : [],
  );
  return keys.some(
    (key) => cdkContext[key] !== undefined || given.some((value) => value.startsWith(`${key}=`)),
  );
};

/** The plan for `action` on the stage `argv` names; a StageNameError (one sentence) without a good one. */
export const deployPlan = (
  action: CdkAction,
  argv: readonly string[],
  cdkContext: Readonly<Record<string, unknown>> = {},
): DeployPlan => {
  const rest: string[] = [];
  let stage: string | undefined;
  let full = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (argument === '--stage') {
      stage = argv[++index] ?? '';
    } else if (argument.startsWith('--stage=')) {
      stage = argument.slice('--stage='.length);
    } else if (argument === '--full') {
      full = true;
    } else {
      rest.push(argument);
    }
  }
  if (stage === undefined) throw new StageNameError(`--stage is required. ${USAGE}`);
  const name = parseStageName(stage, '--stage');
  if (full && !isDevStageName(name))
    throw new StageNameError(
      `--full is for a stack of your own (--stage dev-<name>): ${name} is always full.`,
    );
  const toolkit = rest.indexOf('--toolkit-stack-name');
  return {
    action,
    stage: name,
    cdkArgs: [
      action,
      stackName(name),
      '-c',
      `${STAGE_SETTING}=${name}`,
      ...(full ? ['-c', `${SHAPE_SETTING}=full`] : []),
      ...rest,
    ],
    toolkitStack: (toolkit >= 0 ? rest[toolkit + 1] : undefined) ?? TOOLKIT_STACK,
    pinned: isPinned(name, rest, cdkContext),
  };
};

/** The `cdk` arguments for `action` on the stage `argv` names. */
export const cdkArguments = (action: CdkAction, argv: readonly string[]): string[] => [
  ...deployPlan(action, argv).cdkArgs,
];

export interface DeployClients {
  readonly cloudFormation: CloudFormationClient;
  readonly apiGateway: APIGatewayClient;
}

/** The caller's clients (AWS_REGION, AWS_PROFILE…), loaded only once the arguments are good. */
export const createDeployClients = async (): Promise<DeployClients> => {
  const [{ CloudFormationClient }, { APIGatewayClient }] = await Promise.all([
    import('@aws-sdk/client-cloudformation'),
    import('@aws-sdk/client-api-gateway'),
  ]);
  // A user waits on these: one attempt each, short, so no network is said in seconds.
  const config = { maxAttempts: 2, requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 } };
  return { cloudFormation: new CloudFormationClient(config), apiGateway: new APIGatewayClient(config) };
};

/** Statuses of a stack that works: created or updated, or an update rolled back to what worked. */
const USABLE = /^(CREATE|UPDATE|IMPORT|UPDATE_ROLLBACK|IMPORT_ROLLBACK)_COMPLETE$/;

const isDenied = (error: unknown): boolean =>
  error instanceof Error && ['AccessDenied', 'AccessDeniedException'].includes(error.name);

/**
 * `cdk deploy` needs the account and region bootstrapped: "Bootstrapping your environment for use
 * with the AWS CDK" (CDK Developer Guide) makes the stack `CDKToolkit` with the roles and the
 * bucket every deployment uses.
 */
const checkBootstrap = async (
  { cloudFormation }: DeployClients,
  { toolkitStack }: DeployPlan,
  io: CommandIo,
): Promise<void> => {
  const { DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  try {
    const { Stacks = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: toolkitStack }));
    const status = Stacks[0]?.StackStatus ?? 'not described';
    if (!USABLE.test(status))
      throw new AwsSetupError(
        `The CDK's bootstrap stack ${toolkitStack} is ${status} in this account and region: bootstrap again (npx cdk bootstrap), then deploy.`,
      );
  } catch (error) {
    // CloudFormation's error for an unknown stack (it has no exception class of its own).
    if (error instanceof Error && error.name === 'ValidationError')
      throw new AwsSetupError(
        `This account and region are not bootstrapped for the CDK (no stack ${toolkitStack}): run npx cdk bootstrap once, then deploy again.`,
      );
    if (!isDenied(error)) throw error;
    io.err(`Could not check the CDK's bootstrap (${(error as Error).name}): cdk will say if it is missing.`);
  }
};

/**
 * A stage writes access and execution logs, which API Gateway does with the account's one role:
 * "To enable CloudWatch Logs, you must grant API Gateway permission to read and write logs to
 * CloudWatch for your account" ("Set up CloudWatch logging for REST APIs in API Gateway"). The
 * stacks do not set it: "you should only have one AWS::ApiGateway::Account resource per region
 * per account", and "when you delete a stack containing this resource, API Gateway can still
 * assume the provided IAM role" ("AWS::ApiGateway::Account", CloudFormation): a developer's stack
 * setting it would overwrite staging's, and outlive its own deletion.
 */
const checkCloudWatchRole = async ({ apiGateway }: DeployClients, io: CommandIo): Promise<void> => {
  const { GetAccountCommand } = await import('@aws-sdk/client-api-gateway');
  try {
    const { cloudwatchRoleArn } = await apiGateway.send(new GetAccountCommand({}));
    if (!cloudwatchRoleArn)
      throw new AwsSetupError(
        'API Gateway has no CloudWatch Logs role in this account and region, without which the stage fails to create: set it once (docs/deploy.md, "Once per account and region"), then deploy again.',
      );
  } catch (error) {
    if (!isDenied(error)) throw error;
    io.err(
      `Could not check API Gateway's CloudWatch Logs role (${(error as Error).name}): the stage fails to create without it (docs/deploy.md, "Once per account and region").`,
    );
  }
};

/** What cdk needs of the account, checked in seconds: a region and credentials, then (deploy) bootstrap and role. */
export const preflight = async (plan: DeployPlan, clients: DeployClients, io: CommandIo): Promise<void> => {
  await checkAwsSetup(clients.cloudFormation);
  if (plan.action === 'destroy') return;
  if (plan.pinned) {
    io.err(
      `${plan.stage} names its account or region in the CDK context: cdk checks that account's bootstrap; see to its CloudWatch Logs role (docs/deploy.md).`,
    );
    return;
  }
  await checkBootstrap(clients, plan, io);
  await checkCloudWatchRole(clients, io);
};

/** Runs `cdk` from the project's dev dependencies; resolves to its exit code. */
const runCdk = (args: readonly string[]): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn('cdk', args, { stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

export interface DeployDependencies {
  readonly io?: CommandIo;
  /** @default createDeployClients (the caller's AWS account) */
  readonly clients?: () => Promise<DeployClients>;
  /** @default the project's cdk, as a process */
  readonly cdk?: (args: readonly string[]) => Promise<number>;
  /** @default cdk.json's context */
  readonly cdkContext?: Readonly<Record<string, unknown>>;
}

const cdkJsonContext = (): Record<string, unknown> =>
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context ?? {};

/** The outputs a first deployment reads next, as `name value` lines. */
const outputLines = (outputs: Readonly<Record<string, string>>): string[] => {
  const width = Math.max(...Object.keys(outputs).map((name) => name.length));
  return Object.entries(outputs).map(([name, value]) => `  ${name.padEnd(width)}  ${value}`);
};

/** `npm run deploy` / `destroy`: resolves to the exit code; what the user can fix is one line and exit 2. */
export const main = async (
  action: CdkAction,
  argv: readonly string[],
  dependencies: DeployDependencies = {},
): Promise<number> => {
  const { io = CONSOLE, cdk = runCdk } = dependencies;
  if (wantsHelp(argv)) {
    io.out(USAGE);
    return 0;
  }
  let clients: DeployClients | undefined;
  let doing = 'checking the AWS account before cdk runs';
  try {
    const plan = parsing(() => deployPlan(action, argv, dependencies.cdkContext ?? cdkJsonContext()));
    clients = await (dependencies.clients ?? createDeployClients)();
    await preflight(plan, clients, io);
    io.err(`> cdk ${plan.cdkArgs.join(' ')}`);
    const code = await cdk(plan.cdkArgs);
    // A pinned stage's stack is in an account these credentials may not read: cdk printed its outputs.
    if (code !== 0 || action === 'destroy' || plan.pinned) return code;
    doing = `reading the outputs of ${stackName(plan.stage)}`;
    const { name, outputs } = await describeStack(clients.cloudFormation, plan.stage);
    io.out(
      `${name} is deployed. Its outputs (npm run -s outputs -- --stage ${plan.stage} <name> prints one):`,
    );
    for (const line of outputLines(outputs)) io.out(line);
    return 0;
  } catch (error) {
    const region = await clients?.cloudFormation.config.region().catch(() => undefined);
    const userError = awsUserError(error, { doing, ...(region ? { region } : {}) });
    if (!(userError instanceof UserError)) throw error;
    io.err(`Cannot ${action}: ${userError.message}`);
    return USER_ERROR_EXIT;
  } finally {
    clients?.cloudFormation.destroy();
    clients?.apiGateway.destroy();
  }
};

if (isEntry(import.meta.url)) {
  const [action, ...argv] = process.argv.slice(2);
  await runCommand(async () => {
    if (action === 'deploy' || action === 'destroy') return main(action, argv);
    console.error(USAGE);
    return USER_ERROR_EXIT;
  });
}
