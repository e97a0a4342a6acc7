import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
let synthesized: { stacks: string[]; templates: string[]; guard: PluginReport | undefined } | undefined;
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
    templates: assembly.stacks.map((stack) => stack.templateFullPath),
    guard: report.pluginReports.find((plugin) => plugin.pluginName === 'cdk-validator-cfnguard'),
  };
  return synthesized;
};

/**
 * What AWS's CloudFormation linter (cfn-lint, Python: `pip install cfn-lint`) may report and
 * this project accepts, by rule, each with its reason. Any other finding fails the run, an error,
 * a warning or an informational one alike, as an unaccepted cdk-nag or Control Tower finding
 * fails the synth: a warning names a template CloudFormation accepts but that likely does not do
 * what was meant, which is read once and then fixed or accepted here.
 */
const ACCEPTED_CFN_LINT_RULES: Readonly<Record<string, string>> = {
  W3005:
    'A DependsOn beside the Ref or GetAtt that already orders the two resources: the CDK writes both ' +
    '(a role before its function, the stage before its firewall association), and CloudFormation ' +
    'orders them once, as either alone would.',
};

interface CfnLintFinding {
  readonly Filename: string;
  readonly Level: 'Error' | 'Warning' | 'Informational';
  readonly Message: string;
  readonly Rule: { readonly Id: string };
  readonly Location: { readonly Path: readonly (string | number)[] };
}

const CFN_LINT = 'cfn-lint';

/**
 * One run over every stage's template (its start and its schemas cost about 2 CPU-s, each
 * template about 3); undefined where no cfn-lint is on PATH.
 */
const cfnLint = async (templates: readonly string[]): Promise<CfnLintFinding[] | undefined> => {
  const run = promisify(execFile)(
    CFN_LINT,
    [
      '--format',
      'json',
      '--ignore-checks',
      ...Object.keys(ACCEPTED_CFN_LINT_RULES),
      // Findings are read from the report; a failure to run still fails.
      '--non-zero-exit-code',
      'none',
      '--',
      ...templates,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const { stdout } = await run.catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return { stdout: undefined };
    throw error;
  });
  return stdout === undefined ? undefined : (JSON.parse(stdout) as CfnLintFinding[]);
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
      // The events' failures queue is itself a dead-letter queue.
      'CT.SQS.PR.1': 'sqs_dlq_check',
    });
    for (const finding of guard?.suppressedViolations ?? [])
      expect(finding.reason.length).toBeGreaterThan(40);
    // Four stacks through every check, about 25 CPU-s, which a loaded machine stretches past a
    // minute: it is waited for, and the timeout only ends one that hangs.
  }, 600_000);

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

  it("passes AWS's CloudFormation linter on every stage's template, but for the findings accepted by rule", async (context) => {
    const { stacks, templates } = synthesizedWithEveryCheck();

    const findings = await cfnLint(templates);

    if (!findings) {
      const reason = `no ${CFN_LINT} on PATH (pip install cfn-lint): the templates were not checked against CloudFormation's resource schemas`;
      console.warn(`\n${reason}\n`);
      return context.skip(reason);
    }
    expect(templates).toHaveLength(stacks.length);
    expect(
      findings.map(
        (finding) =>
          `${finding.Rule.Id} (${finding.Level}) ${finding.Location.Path.join('/')} in ${finding.Filename.split('/').at(-1)}: ${finding.Message}`,
      ),
    ).toEqual([]);
    for (const reason of Object.values(ACCEPTED_CFN_LINT_RULES)) expect(reason.length).toBeGreaterThan(40);
    // The test waits for cfn-lint to exit, about 12 CPU-s of schema validation that a loaded machine
    // stretches to a minute or more: the timeout only ends a run that hangs.
  }, 600_000);

  it('deploys each stage to the account and region its context names, else to the CLI defaults', () => {
    const { stacks } = buildTestApp({
      context: { 'production:account': '111122223333', 'production:region': 'eu-west-1' },
      env: { CDK_DEFAULT_ACCOUNT: '444455556666', CDK_DEFAULT_REGION: 'us-east-2' },
    });

    expect([stacks.production.account, stacks.production.region]).toEqual(['111122223333', 'eu-west-1']);
    expect([stacks.staging.account, stacks.staging.region]).toEqual(['444455556666', 'us-east-2']);
  });
});
