import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { controlTowerRules, rulesFor } from '#infra/control-tower';
import { STAGE_SETTING } from '#infra/stage-names';
import { buildTestApp } from '../support/pet-store-app';

const names = (paths: readonly string[]) => paths.map((path) => basename(path, '.guard'));

describe('the Control Tower rules run at synthesis', () => {
  it('are the rules that check a resource type the templates hold', () => {
    const picked = names(rulesFor(new Set(['AWS::Lambda::Permission', 'AWS::KMS::Key'])));

    expect(picked).toContain('ct-lambda-pr-2');
    expect(picked).toContain('ct-kms-pr-3');
    expect(picked).not.toContain('ct-lambda-pr-3'); // AWS::Lambda::Function
    expect(picked.some((name) => name.startsWith('ct-s3-'))).toBe(false);
  });

  it('come from the whole rule set of the package, each naming the types it checks', () => {
    const rules = controlTowerRules();

    expect(rules.length).toBeGreaterThan(200);
    expect(rules.filter((rule) => rule.types.length === 0)).toEqual([]);
  });
});

interface GuardReport {
  readonly pluginName: string;
  readonly conclusion: string;
  readonly violations: unknown[];
  readonly suppressedViolations?: { ruleName: string; resourceLogicalId?: string; templatePath?: string }[];
}

describe("the Control Tower rules on a developer's stage", () => {
  it('pass at synthesis, accepting for it only the findings accepted for staging', () => {
    const { app } = buildTestApp({ controlTowerChecks: true, context: { [STAGE_SETTING]: 'dev-ann' } });

    const assembly = app.synth();

    const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: GuardReport[];
    };
    const guard = report.pluginReports.find((plugin) => plugin.pluginName === 'cdk-validator-cfnguard');
    expect(assembly.stacks.map((stack) => stack.stackName)).toContain('PetStore-dev-ann');
    expect(guard?.conclusion).toBe('success');
    expect(guard?.violations).toEqual([]);
    const acceptedIn = (stack: string) =>
      new Set(
        (guard?.suppressedViolations ?? [])
          .filter((finding) => JSON.stringify(finding).includes(`${stack}.template.json`))
          .map((finding) => finding.ruleName),
      );
    expect(acceptedIn('PetStore-dev-ann').size).toBeGreaterThan(0);
    expect([...acceptedIn('PetStore-dev-ann')].sort()).toEqual([...acceptedIn('PetStore-staging')].sort());
  });
});
