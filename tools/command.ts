import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * What the operator commands (npm run deploy, verify, keys, smoke, seed) share: where they write,
 * and how a mistake a user can make (a bad argument, no credentials, no network, a wrong region, no
 * such stack) becomes one sentence and exit 2, never a stack trace.
 */

/** Where a command writes: its results to `out`, everything said about them to `err`. */
export interface CommandIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

export const CONSOLE: CommandIo = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** Whether the module at `url` is the script Node.js was started with, rather than imported (as by a test). */
export const isEntry = (url: string): boolean => {
  const entry = process.argv[1];
  return entry !== undefined && realpathSync(entry) === realpathSync(fileURLToPath(url));
};

export const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** The exit code of a command that could not start or go on for a reason the user can fix. */
export const USER_ERROR_EXIT = 2;

/** Something the user can fix, said as one sentence (its message) that says what to do: exit 2. */
export class UserError extends Error {
  override readonly name: string = 'UserError';
}

/** An argument the command cannot take: said with a pointer to `--help`. */
export class UsageError extends UserError {
  override readonly name = 'UsageError';
}

/** What a command calling AWS cannot start without (a region, credentials, its stack): one sentence, said as is. */
export class AwsSetupError extends UserError {
  override readonly name = 'AwsSetupError';
}

/** Asked for its usage (`--help`, `-h`): print it, start nothing, exit 0. */
export const wantsHelp = (argv: readonly string[]): boolean =>
  argv.some((argument) => argument === '--help' || argument === '-h');

/**
 * A refused argument as a UsageError: node:util's parseArgs throws a TypeError with a `code`
 * (`ERR_PARSE_ARGS_…`), the stage names a StageNameError (infra/stage-names.ts), each one
 * sentence already.
 */
export const parsing = <T>(parse: () => T): T => {
  try {
    return parse();
  } catch (error) {
    if (error instanceof UserError) throw error;
    if (error instanceof Error && error.name === 'StageNameError') throw new UsageError(error.message);
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'))
      throw new UsageError(`${(error as Error).message} (see --help)`);
    throw error;
  }
};

const SIGN_IN =
  'sign in (aws sso login --profile <name>) and set AWS_PROFILE to that profile, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';

/**
 * Says which setting is missing, before any call, rather than the SDK's own error from deep inside
 * the first one: no region, no credentials, or neither (a shell that never signed in).
 */
export const checkAwsSetup = async (client: {
  readonly config: { readonly region: () => Promise<string>; readonly credentials: () => Promise<unknown> };
}): Promise<void> => {
  const region = await client.config.region().then(
    () => true,
    () => false,
  );
  const credentials = await client.config.credentials().then(
    () => true,
    () => false,
  );
  if (!region && !credentials)
    throw new AwsSetupError(
      `No AWS credentials and no region: ${SIGN_IN}; and set AWS_REGION (or give the profile a region).`,
    );
  if (!region)
    throw new AwsSetupError(
      'No AWS region: give --region <region> (the stack’s region), or set AWS_REGION, or AWS_PROFILE to a profile that names one.',
    );
  if (!credentials) throw new AwsSetupError(`No usable AWS credentials: ${SIGN_IN}.`);
};

/** Network errors Node.js reports by code: nothing answered, or the host has no address. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** AWS's error names (the SDK's `name`) for credentials it refuses, by why. */
const EXPIRED = new Set(['ExpiredToken', 'ExpiredTokenException', 'TokenRefreshRequired', 'RequestExpired']);
const REFUSED = new Set([
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'InvalidAccessKeyId',
  'AuthFailure',
]);
const DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation']);

/** Why nothing answered (Node.js's code, or the SDK's TimeoutError), from an error or its causes; undefined if something did. */
export const unreachableCode = (error: unknown): string | undefined => {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.has(code)) return code;
    // The SDK's own timeouts (connection or request, `throwOnRequestTimeout`).
    if (cause.name === 'TimeoutError') return cause.name;
  }
  return undefined;
};

/**
 * An AWS SDK error the user can fix, as one sentence, recognised by the error's name or Node.js's
 * code, never its message; undefined for anything else. `doing` says what was being done
 * (`reading stack PetStore-dev-ann`); `region`, where.
 */
export const awsUserError = (
  error: unknown,
  { doing, region }: { readonly doing: string; readonly region?: string },
): UserError | undefined => {
  if (error instanceof UserError) return error;
  if (!(error instanceof Error)) return undefined;
  const where = region ? ` in ${region}` : '';
  const unreachable = unreachableCode(error);
  if (unreachable)
    return new UserError(
      `AWS cannot be reached while ${doing}${where} (${unreachable}): check the network (a proxy, a VPN), and that AWS_REGION names a region that exists.`,
    );
  if (error.name === 'CredentialsProviderError')
    return new UserError(`No usable AWS credentials while ${doing}: ${SIGN_IN}.`);
  if (EXPIRED.has(error.name))
    return new UserError(
      `Your AWS credentials have expired (${error.name}, while ${doing}): sign in again (aws sso login --profile <name>, with AWS_PROFILE set to it), or renew AWS_SESSION_TOKEN.`,
    );
  if (REFUSED.has(error.name))
    return new UserError(
      `AWS refused your credentials (${error.name}, while ${doing}): check that AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, name a user or role of this account.`,
    );
  if (DENIED.has(error.name))
    return new UserError(
      `Your AWS identity may not do this (${error.name}, while ${doing}${where}): use a profile with the permissions docs/deploy.md names for this command.`,
    );
  return undefined;
};

/**
 * The entry of an operator command: the SDK's notice about this machine's Node.js version kept
 * off (it says nothing about the command, and would come before its own words), `main` run, and
 * any UserError it lets through said in one line with exit 2; anything else is a bug, and fails as one.
 */
export const runCommand = async (main: (argv: readonly string[]) => Promise<number>): Promise<void> => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    console.error(error.message);
    process.exitCode = USER_ERROR_EXIT;
  }
};
