import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PetStoreStack } from '#infra/pet-store-stack';
import { STAGE_SETTING, stackName } from '#infra/stage-names';
import { devStage } from '#infra/stages';
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
 * stage, as `npm run deploy -- --stage dev-ann` builds it (lean), plus a full developer stack
 * (`--full`) in the same app: the schema and the rules are loaded once (about 10 CPU-s) for every
 * stage and shape, where each case synthesized an app of its own.
 */
let synthesized: { stacks: string[]; guard: PluginReport | undefined } | undefined;
const synthesizedWithEveryCheck = () => {
  if (synthesized) return synthesized;
  const { app } = buildTestApp({
    builtinCloudFormationValidation: true,
    controlTowerChecks: true,
    context: { [STAGE_SETTING]: 'dev-ann' },
  });
  new PetStoreStack(app, stackName('dev-bea'), { stage: { ...devStage('dev-bea', 'full'), env: {} } });
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

    expect(stacks).toEqual([
      'PetStore-dev-ann',
      'PetStore-dev-bea',
      'PetStore-production',
      'PetStore-staging',
    ]);
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
    });
    for (const finding of guard?.suppressedViolations ?? [])
      expect(finding.reason.length).toBeGreaterThan(40);
    // Four stacks through every check: about 25 CPU-s, over a minute on a machine shared with other runs.
  }, 240_000);

  it.each([
    ['lean', 'PetStore-dev-ann'],
    ['full', 'PetStore-dev-bea'],
  ])(
    "accepts on a %s developer's stage only the Control Tower findings accepted for staging",
    (_shape, stack) => {
      const { guard } = synthesizedWithEveryCheck();

      const acceptedIn = (name: string) =>
        new Set(
          (guard?.suppressedViolations ?? [])
            .filter((finding) => JSON.stringify(finding).includes(`${name}.template.json`))
            .map((finding) => finding.ruleName),
        );
      expect(acceptedIn(stack).size).toBeGreaterThan(0);
      expect([...acceptedIn(stack)].sort()).toEqual([...acceptedIn('PetStore-staging')].sort());
    },
  );

  it('deploys each stage to the account and region its context names, else to the CLI defaults', () => {
    const { stacks } = buildTestApp({
      context: { 'production:account': '111122223333', 'production:region': 'eu-west-1' },
      env: { CDK_DEFAULT_ACCOUNT: '444455556666', CDK_DEFAULT_REGION: 'us-east-2' },
    });

    expect([stacks.production.account, stacks.production.region]).toEqual(['111122223333', 'eu-west-1']);
    expect([stacks.staging.account, stacks.staging.region]).toEqual(['444455556666', 'us-east-2']);
  });
});
