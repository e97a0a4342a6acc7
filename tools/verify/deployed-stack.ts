import {
  type CloudFormationClient,
  DescribeStacksCommand,
  type DescribeStacksCommandOutput,
  paginateListStackResources,
} from '@aws-sdk/client-cloudformation';
import type { AnyStageName } from '#infra/stage-names';
import { stackName } from '#infra/stage-names';

/** What `npm run verify` cannot start without: no stack, no credentials, no region. One sentence, said as is. */
export class VerifySetupError extends Error {
  override readonly name = 'VerifySetupError';
}

/** A stack as CloudFormation describes it after a deployment: its outputs and its resources' physical ids. */
export interface DeployedStack {
  readonly stage: AnyStageName;
  readonly name: string;
  readonly outputs: Readonly<Record<string, string>>;
  /** Physical ids of the stack's resources of `type`, e.g. every alarm name of `AWS::CloudWatch::Alarm`. */
  readonly physicalIds: (type: string) => readonly string[];
}

/** Statuses a stack is in once a create or update has finished well. */
const SETTLED = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'IMPORT_COMPLETE']);

/** CloudFormation's error type for an unknown stack (it has no exception class of its own). */
const isValidationError = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ValidationError';

/** `PetStore-<stage>` from CloudFormation: DescribeStacks for its outputs, ListStackResources for the rest. */
export const readDeployedStack = async (
  client: CloudFormationClient,
  stage: AnyStageName,
): Promise<DeployedStack> => {
  const name = stackName(stage);
  let described: DescribeStacksCommandOutput;
  try {
    described = await client.send(new DescribeStacksCommand({ StackName: name }));
  } catch (error) {
    if (isValidationError(error))
      throw new VerifySetupError(
        `No stack ${name} in this account and region: deploy it first (npm run deploy -- --stage ${stage}), or set AWS_REGION to the region it is in.`,
      );
    throw error;
  }
  const stack = described.Stacks?.[0];
  if (!stack?.StackStatus || !SETTLED.has(stack.StackStatus))
    throw new VerifySetupError(
      `Stack ${name} is ${stack?.StackStatus ?? 'not described'}: verify a stack whose deployment has finished (npm run deploy -- --stage ${stage}).`,
    );
  const outputs = Object.fromEntries(
    (stack.Outputs ?? []).flatMap(({ OutputKey, OutputValue }) =>
      OutputKey && OutputValue ? [[OutputKey, OutputValue]] : [],
    ),
  );
  const byType = new Map<string, string[]>();
  for await (const page of paginateListStackResources({ client }, { StackName: name })) {
    for (const resource of page.StackResourceSummaries ?? []) {
      if (!resource.ResourceType || !resource.PhysicalResourceId) continue;
      byType.set(resource.ResourceType, [
        ...(byType.get(resource.ResourceType) ?? []),
        resource.PhysicalResourceId,
      ]);
    }
  }
  return { stage, name, outputs, physicalIds: (type) => byType.get(type) ?? [] };
};
