import { Validations } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { buildTestApp, synthDevStage, synthStages } from '../support/pet-store-app';

const { app } = synthStages();

/** Every acknowledgement recorded in the construct tree, with the path it was made on. */
const acknowledgements = (root: IConstruct) =>
  root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id,
          reason,
        })),
      ),
  );

describe('cdk-nag AwsSolutions checks', () => {
  it('reports no unacknowledged error or warning in either stage', () => {
    const report = new AwsSolutionsChecks().validateScope(app);

    expect(report.violations.map((violation) => [violation.ruleName, violation.violatingResources])).toEqual(
      [],
    );
    expect(report.success).toBe(true);
  });

  it('gives a written reason with every acknowledgement', () => {
    const acknowledged = acknowledgements(app);

    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(40);
  });

  it('acknowledges missing point-in-time recovery in staging only', () => {
    const pitr = acknowledgements(app).filter(({ id }) => id.includes('AwsSolutions-DDB3'));

    expect(pitr.map(({ path }) => path)).toEqual(['PetStore-staging/Tables']);
  });

  it('acknowledges no stage without a WAF: both stages have one', () => {
    const noWaf = acknowledgements(app).filter(({ id }) => id.includes('AwsSolutions-APIG3'));

    expect(noWaf).toEqual([]);
  });

  it('fails synthesis when a finding is neither fixed nor acknowledged', () => {
    const { app: strayApp, stacks } = buildTestApp();
    // A topic without encryption or a TLS-only policy: AwsSolutions-SNS2 and SNS3.
    new Topic(stacks.staging, 'Stray');

    expect(() => strayApp.synth()).toThrow(/AwsSolutions-SNS3/);
  });
});

describe.each(['lean', 'full'] as const)("cdk-nag AwsSolutions checks on a %s developer's stage", (shape) => {
  const { app: devApp } = synthDevStage('dev-ann', shape);

  it('reports no unacknowledged error or warning in it either', () => {
    const report = new AwsSolutionsChecks().validateScope(devApp);

    expect(report.violations.map((violation) => [violation.ruleName, violation.violatingResources])).toEqual(
      [],
    );
    expect(report.success).toBe(true);
  });

  it('acknowledges the missing firewall and point-in-time recovery there, with the stage setting as the reason', () => {
    const paths = (rule: string) =>
      acknowledgements(devApp)
        .filter(({ id }) => id.includes(rule))
        .map(({ path }) => path);

    expect(paths('AwsSolutions-APIG3')).toEqual(['PetStore-dev-ann/Api/Api/DeploymentStage.v1']);
    expect(paths('AwsSolutions-DDB3')).toEqual(['PetStore-staging/Tables', 'PetStore-dev-ann/Tables']);
  });
});
