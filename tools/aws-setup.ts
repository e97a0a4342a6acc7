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
