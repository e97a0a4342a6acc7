import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What the operator commands (npm run keys, verify, deploy) share. */

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

/** What a command calling AWS cannot start without (a region, credentials, its stack): one sentence, said as is. */
export class AwsSetupError extends Error {
  override readonly name = 'AwsSetupError';
}

/** Says which setting is missing, rather than the SDK's own error from deep inside the first call. */
export const checkAwsSetup = async (client: {
  readonly config: { readonly region: () => Promise<string>; readonly credentials: () => Promise<unknown> };
}): Promise<void> => {
  try {
    await client.config.region();
  } catch {
    throw new AwsSetupError(
      'No AWS region: give --region <region> (the stack’s region), or set AWS_REGION, or AWS_PROFILE to a profile that names one.',
    );
  }
  try {
    await client.config.credentials();
  } catch {
    throw new AwsSetupError(
      'No AWS credentials: set AWS_PROFILE to a signed-in profile (aws sso login --profile <name>), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    );
  }
};
