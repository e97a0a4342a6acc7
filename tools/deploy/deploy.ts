import { spawn } from 'node:child_process';
import {
  isDevStageName,
  parseStageName,
  SHAPE_SETTING,
  STAGE_SETTING,
  StageNameError,
  stackName,
} from '#infra/stage-names';
import { isEntry } from '#tools/command';

/** `npm run deploy|destroy -- --stage <stage> [cdk options]`: `cdk -c stage=<stage>`, the rest as is. */

export const USAGE = `Usage: npm run deploy -- --stage <stage> [--full] [cdk deploy options]
       npm run destroy -- --stage <stage> [cdk destroy options]
<stage>: dev-<name> (your own stack, PetStore-dev-<name>; <name> is lowercase letters and digits), staging or production.
--full: a stack of your own with what operating production needs (alarms, their topic, the dashboard,
        gradual deployments), to rehearse them; without it, the service alone.`;

export type CdkAction = 'deploy' | 'destroy';

/** The `cdk` arguments for `action` on the stage `argv` names; a StageNameError (one sentence) without a good one. */
export const cdkArguments = (action: CdkAction, argv: readonly string[]): string[] => {
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
  return [
    action,
    stackName(name),
    '-c',
    `${STAGE_SETTING}=${name}`,
    ...(full ? ['-c', `${SHAPE_SETTING}=full`] : []),
    ...rest,
  ];
};

/** Runs `cdk` from the project's dev dependencies; resolves to its exit code. */
const runCdk = (args: readonly string[]): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn('cdk', args, { stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

export const main = async (action: CdkAction, argv: readonly string[]): Promise<number> => {
  let args: string[];
  try {
    args = cdkArguments(action, argv);
  } catch (error) {
    if (!(error instanceof StageNameError)) throw error;
    console.error(error.message);
    return 2;
  }
  console.error(`> cdk ${args.join(' ')}`);
  return runCdk(args);
};

if (isEntry(import.meta.url)) {
  const [action, ...argv] = process.argv.slice(2);
  if (action !== 'deploy' && action !== 'destroy') {
    console.error(USAGE);
    process.exitCode = 2;
  } else {
    process.exitCode = await main(action, argv);
  }
}
