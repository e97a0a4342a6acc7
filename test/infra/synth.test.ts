import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/pet-store-app';

interface PluginReport {
  readonly pluginName: string;
  readonly conclusion: string;
  readonly violations: unknown[];
  readonly suppressedViolations?: { ruleName: string; description: string; reason: string }[];
}

describe('synthesis', () => {
  it('synthesizes both stacks offline, with CloudFormation validation, cdk-nag and Control Tower rules on, as `cdk synth` does', () => {
    const { app } = buildTestApp({ builtinCloudFormationValidation: true, controlTowerChecks: true });

    const assembly = app.synth();

    expect(assembly.stacks.map((stack) => stack.stackName).sort()).toEqual([
      'PetStore-production',
      'PetStore-staging',
    ]);
    // What Control Tower's rules found, each accepted by rule name with a reason (docs/design.md).
    const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: PluginReport[];
    };
    const guard = report.pluginReports.find((plugin) => plugin.pluginName === 'cdk-validator-cfnguard');
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
