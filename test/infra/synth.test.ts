import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/pet-store-app';

describe('synthesis', () => {
  it('synthesizes both stacks offline, with CloudFormation validation and cdk-nag on, as `cdk synth` does', () => {
    const { app } = buildTestApp({ builtinCloudFormationValidation: true });

    const assembly = app.synth();

    expect(assembly.stacks.map((stack) => stack.stackName).sort()).toEqual([
      'PetStore-production',
      'PetStore-staging',
    ]);
  });

  it('deploys each stage to the account and region its context names, else to the CLI defaults', () => {
    const { stacks } = buildTestApp({
      context: { 'production:account': '111122223333', 'production:region': 'eu-west-1' },
      env: { CDK_DEFAULT_ACCOUNT: '444455556666', CDK_DEFAULT_REGION: 'us-east-2' },
    });

    expect([stacks.production.account, stacks.production.region]).toEqual(['111122223333', 'eu-west-1']);
    expect([stacks.staging.account, stacks.staging.region]).toEqual(['444455556666', 'us-east-2']);
  });
});
