import { Duration, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ApiFunction } from '#infra/constructs/api-function';
import { Tables } from '#infra/constructs/tables';
import { ValidationError } from '#infra/constructs/validation-error';
import { PetStoreStack } from '#infra/pet-store-stack';
import { STAGE_DEFAULTS, type StageConfig } from '#infra/stages';
import type { TableKey } from '#shared/config';
import { buildTestApp } from '../support/pet-store-app';

/** A stage as staging, with `changes`; built in a test app (no bundling). */
const stackWith = (changes: Partial<StageConfig>) => () =>
  new PetStoreStack(buildTestApp().app, 'PetStore-broken', {
    stage: { ...STAGE_DEFAULTS.staging, env: {}, ...changes },
  });

/** What a construct check throws, so its message and path can be read. */
const thrownBy = (build: () => unknown): ValidationError => {
  try {
    build();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('Expected a ValidationError');
};

describe('a stage the constructs cannot build', () => {
  it('fails naming the API when an allowed origin is not one a browser sends', () => {
    const error = thrownBy(stackWith({ allowedOrigins: ['https://App.example.com/'] }));

    expect(error.constructPath).toBe('PetStore-broken/Api');
    expect(error.message).toMatch(/^PetStore-broken\/Api: allowedOrigins: "https:\/\/App\.example\.com\/"/);
  });

  it("fails naming the API when the write methods' own throttle is above the stage's, which it only lowers", () => {
    const error = thrownBy(stackWith({ writeThrottling: { rateLimit: 21, burstLimit: 40 } }));

    expect(error.constructPath).toBe('PetStore-broken/Api');
    expect(error.message).toContain(
      "writeThrottling (rate 21, burst 40) is above the stage's throttling (rate 20, burst 40)",
    );
  });

  it('fails naming the monitoring when an alarm could never fire', () => {
    const alarms = { ...STAGE_DEFAULTS.staging.alarms, evaluationPeriods: 2, datapointsToAlarm: 3 };

    const error = thrownBy(stackWith({ alarms }));

    expect(error.constructPath).toBe('PetStore-broken/Monitoring');
    expect(error.message).toContain('datapointsToAlarm (3) exceeds alarms.evaluationPeriods (2)');
  });

  it('fails naming the monitoring when the 5xx threshold is not a share', () => {
    const alarms = { ...STAGE_DEFAULTS.staging.alarms, serverErrorRate: 5 };

    expect(thrownBy(stackWith({ alarms })).constructPath).toBe('PetStore-broken/Monitoring');
  });

  it('fails naming the monitoring when a deployment alarm could not fire within a 5-minute canary', () => {
    const alarms = { ...STAGE_DEFAULTS.production.alarms, deploymentPeriodMinutes: 3 };

    const error = thrownBy(stackWith({ alarms }));

    expect(error.constructPath).toBe('PetStore-broken/Monitoring');
    expect(error.message).toContain('could not fire within a canary');
  });

  it("fails naming the function when its timeout is longer than API Gateway's 29 s", () => {
    const stack = new Stack(buildTestApp().app, 'Functions');

    const error = thrownBy(
      () =>
        new ApiFunction(stack, 'Slow', {
          entry: 'functions/get-pet.ts',
          description: 'too slow',
          timeout: Duration.seconds(30),
          logRetention: STAGE_DEFAULTS.staging.logRetention,
          logRemovalPolicy: STAGE_DEFAULTS.staging.dataProtection.removalPolicy,
          logLevel: 'INFO',
          stage: 'staging',
          live: true,
        }),
    );

    expect(error.constructPath).toBe('Functions/Slow');
    expect(error.message).toContain("exceeds API Gateway's integration timeout (29 s)");
  });

  it('fails naming the function when asked for the live alias of a function not deployed gradually', () => {
    const stack = new Stack(buildTestApp().app, 'Functions');
    const fn = new ApiFunction(stack, 'Direct', {
      entry: 'functions/get-pet.ts',
      description: 'invoked directly',
      logRetention: STAGE_DEFAULTS.staging.logRetention,
      logRemovalPolicy: STAGE_DEFAULTS.staging.dataProtection.removalPolicy,
      logLevel: 'INFO',
      stage: 'staging',
      live: false,
    });

    const error = thrownBy(() => fn.alias);

    expect(error.constructPath).toBe('Functions/Direct');
    expect(error.message).toContain('no live alias');
    expect(fn.invoked).toBe(fn.function);
  });

  it('fails naming the tables when asked for a table they do not hold', () => {
    const tables = new Tables(new Stack(buildTestApp().app, 'Data'), 'Tables', {
      dataProtection: STAGE_DEFAULTS.staging.dataProtection,
    });

    const error = thrownBy(() => tables.byKey('owners' as TableKey));

    expect(error).toMatchObject({ name: 'ValidationError', constructPath: 'Data/Tables' });
  });
});
