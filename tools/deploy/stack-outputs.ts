import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { type AnyStageName, stackName } from '#infra/stage-names';
import { AwsSetupError } from '#tools/command';

/** A stage's stack as CloudFormation describes it once a deployment has finished: its outputs. */
export interface DescribedStack {
  readonly name: string;
  readonly outputs: Readonly<Record<string, string>>;
}

/** Statuses a stack is in once a create or update has finished well. */
const SETTLED = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'IMPORT_COMPLETE']);

/**
 * `PetStore-<stage>` from CloudFormation (DescribeStacks); an AwsSetupError, one sentence, when
 * there is none in the credentials' account and region or its deployment has not finished.
 */
export const describeStack = async (
  client: CloudFormationClient,
  stage: AnyStageName,
): Promise<DescribedStack> => {
  const name = stackName(stage);
  const described = await client.send(new DescribeStacksCommand({ StackName: name })).catch((error) => {
    // CloudFormation's error for an unknown stack (it has no exception class of its own).
    if (error instanceof Error && error.name === 'ValidationError')
      throw new AwsSetupError(
        `No stack ${name} in this account and region: deploy it first (npm run deploy -- --stage ${stage}), or set AWS_REGION to the region it is in.`,
      );
    throw error;
  });
  const stack = described.Stacks?.[0];
  if (!stack?.StackStatus || !SETTLED.has(stack.StackStatus))
    throw new AwsSetupError(
      `Stack ${name} is ${stack?.StackStatus ?? 'not described'}: use a stack whose deployment has finished (npm run deploy -- --stage ${stage}).`,
    );
  const outputs = Object.fromEntries(
    (stack.Outputs ?? []).flatMap(({ OutputKey, OutputValue }) =>
      OutputKey && OutputValue ? [[OutputKey, OutputValue]] : [],
    ),
  );
  return { name, outputs };
};
