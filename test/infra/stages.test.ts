import { RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { stackName } from '#infra/stage-names';
import { resolveStages, STAGE_DEFAULTS, stageEnvironment } from '#infra/stages';

const noContext = () => undefined;

describe('stage configuration', () => {
  it('names one stack per stage', () => {
    expect(resolveStages({ context: noContext, env: {} }).map((stage) => stackName(stage.name))).toEqual([
      'PetStore-staging',
      'PetStore-production',
    ]);
  });

  it('is environment-agnostic when neither context nor the CLI names an account or region', () => {
    expect(stageEnvironment('staging', { context: noContext, env: {} })).toEqual({});
  });

  it('takes account and region from the CDK CLI defaults', () => {
    const env = { CDK_DEFAULT_ACCOUNT: '111122223333', CDK_DEFAULT_REGION: 'eu-central-1' };

    expect(stageEnvironment('staging', { context: noContext, env })).toEqual({
      account: '111122223333',
      region: 'eu-central-1',
    });
  });

  it('prefers the stage context over the CLI defaults, per stage', () => {
    const context = (key: string) => ({ 'production:account': '999988887777' })[key];
    const env = { CDK_DEFAULT_ACCOUNT: '111122223333', CDK_DEFAULT_REGION: 'eu-central-1' };

    expect(stageEnvironment('production', { context, env })).toEqual({
      account: '999988887777',
      region: 'eu-central-1',
    });
    expect(stageEnvironment('staging', { context, env }).account).toBe('111122223333');
  });

  it('ignores blank values', () => {
    const context = (key: string) => ({ 'staging:region': '  ' })[key];

    expect(stageEnvironment('staging', { context, env: { CDK_DEFAULT_ACCOUNT: '' } })).toEqual({});
  });

  it('retains and protects production data, and keeps staging disposable', () => {
    expect(STAGE_DEFAULTS.production.dataProtection).toEqual({
      deletionProtection: true,
      pointInTimeRecovery: true,
      removalPolicy: RemovalPolicy.RETAIN,
      terminationProtection: true,
    });
    expect(STAGE_DEFAULTS.staging.dataProtection).toEqual({
      deletionProtection: false,
      pointInTimeRecovery: false,
      removalPolicy: RemovalPolicy.DESTROY,
      terminationProtection: false,
    });
  });

  it('keeps every alarm evaluation satisfiable: datapoints never exceed the periods evaluated', () => {
    for (const stage of Object.values(STAGE_DEFAULTS)) {
      expect(stage.alarms.datapointsToAlarm).toBeLessThanOrEqual(stage.alarms.evaluationPeriods);
      expect(stage.alarms.serverErrorRate).toBeGreaterThan(0);
      expect(stage.alarms.serverErrorRate).toBeLessThan(1);
    }
  });
});
