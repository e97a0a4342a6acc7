import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STAGE_SETTING } from '#infra/stage-names';
import { buildTestApp, synthStages } from '../support/pet-store-app';

interface PluginReport {
  readonly pluginName: string;
  readonly conclusion: string;
  readonly violations: unknown[];
  readonly suppressedViolations?: { ruleName: string; description: string; reason: string }[];
}

/**
 * One synthesis with every check `cdk synth` runs (CloudFormation's template schema, cdk-nag,
 * Control Tower's rules through cfn-guard) of the app with staging, production and a developer's
 * stage, as `npm run deploy -- --stage dev-ann` builds it: the schema and the rules are loaded
 * once (about 10 CPU-s) for every stage, where each case synthesized an app of its own.
 */
let synthesized: { stacks: string[]; guard: PluginReport | undefined } | undefined;
const synthesizedWithEveryCheck = () => {
  if (synthesized) return synthesized;
  const { app } = buildTestApp({
    builtinCloudFormationValidation: true,
    controlTowerChecks: true,
    context: { [STAGE_SETTING]: 'dev-ann' },
  });
  const assembly = app.synth();
  const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
    pluginReports: PluginReport[];
  };
  synthesized = {
    stacks: assembly.stacks.map((stack) => stack.stackName).sort(),
    guard: report.pluginReports.find((plugin) => plugin.pluginName === 'cdk-validator-cfnguard'),
  };
  return synthesized;
};

describe('synthesis', () => {
  it('synthesizes every stage offline, with CloudFormation validation, cdk-nag and Control Tower rules on, as `cdk synth` does', () => {
    const { stacks, guard } = synthesizedWithEveryCheck();

    expect(stacks).toEqual(['PetStore-dev-ann', 'PetStore-production', 'PetStore-staging']);
    // Without a stage in the context, the app is both stages, no more.
    expect(Object.keys(synthStages().stacks)).toEqual(['staging', 'production']);
    // What Control Tower's rules found, each accepted by rule name with a reason (docs/design.md).
    expect(guard?.conclusion).toBe('success');
    expect(guard?.violations).toEqual([]);
    const accepted = new Map(
      (guard?.suppressedViolations ?? []).map((finding) => [
        /^\[([A-Z0-9.]+)\]/.exec(finding.description)?.[1],
        finding.ruleName,
      ]),
    );
    expect(Object.fromEntries(accepted)).toEqual({
      'CT.CLOUDWATCH.PR.2': 'cloudwatch_log_group_retention_period_check',
      'CT.CLOUDWATCH.PR.3': 'cloudwatch_log_group_encrypted_check',
      'CT.DYNAMODB.PR.1': 'dynamodb_table_pitr_enabled_check',
      'CT.LAMBDA.PR.2': 'lambda_function_public_access_prohibited_check',
      'CT.LAMBDA.PR.3': 'lambda_inside_vpc_check',
      // The events' failures queue is itself a dead-letter queue.
      'CT.SQS.PR.1': 'sqs_dlq_check',
    });
    for (const finding of guard?.suppressedViolations ?? [])
      expect(finding.reason.length).toBeGreaterThan(40);
  });

  it("accepts on a developer's stage only the Control Tower findings accepted for staging", () => {
    const { guard } = synthesizedWithEveryCheck();

    const acceptedIn = (stack: string) =>
      new Set(
        (guard?.suppressedViolations ?? [])
          .filter((finding) => JSON.stringify(finding).includes(`${stack}.template.json`))
          .map((finding) => finding.ruleName),
      );
    expect(acceptedIn('PetStore-dev-ann').size).toBeGreaterThan(0);
    expect([...acceptedIn('PetStore-dev-ann')].sort()).toEqual([...acceptedIn('PetStore-staging')].sort());
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
