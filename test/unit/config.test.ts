import { describe, expect, it } from 'vitest';
import { createPetFunction } from '#functions/create-pet';
import { listPetsFunction } from '#functions/list-pets';
import { ConfigError, ENV, readFunctionConfig } from '#shared/config';

/** What a function's cold start does with the environment Lambda gives it. */

describe('readFunctionConfig', () => {
  it('fails at cold start with a ConfigError naming the missing table variable', () => {
    expect(() => readFunctionConfig(['pets', 'counters'], { PETS_TABLE_NAME: 'pets' })).toThrow(
      new ConfigError('Environment variable COUNTERS_TABLE_NAME must be set'),
    );
  });

  it('treats a blank variable as a missing one', () => {
    expect(() => readFunctionConfig(['pets'], { PETS_TABLE_NAME: '  ' })).toThrow(ConfigError);
  });

  it('reads exactly the tables the function uses, the endpoint and the stage', () => {
    const env = {
      PETS_TABLE_NAME: 'PetStore-production-Pets',
      COUNTERS_TABLE_NAME: 'unused',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      PETSTORE_STAGE: 'production',
    };

    expect(readFunctionConfig(['pets'], env)).toEqual({
      tables: { pets: 'PetStore-production-Pets' },
      dynamoDb: { endpoint: 'http://127.0.0.1:8000' },
      stage: 'production',
      metrics: true,
    });
  });

  it('reads the log level in any case, and refuses one Powertools does not know, naming the variable', () => {
    expect(
      readFunctionConfig(['pets'], { PETS_TABLE_NAME: 'p', POWERTOOLS_LOG_LEVEL: 'debug' }).logLevel,
    ).toBe('DEBUG');
    expect(readFunctionConfig(['pets'], { PETS_TABLE_NAME: 'p' })).not.toHaveProperty('logLevel');
    expect(() =>
      readFunctionConfig(['pets'], { PETS_TABLE_NAME: 'p', POWERTOOLS_LOG_LEVEL: 'loud' }),
    ).toThrow(
      new ConfigError('POWERTOOLS_LOG_LEVEL must be one of DEBUG, INFO, WARN, ERROR, SILENT, not "LOUD"'),
    );
  });

  it('leaves the endpoint to the SDK in AWS, where none is set', () => {
    expect(readFunctionConfig(['pets'], { PETS_TABLE_NAME: 'p' }).dynamoDb).toEqual({});
  });
});

describe('the composition roots', () => {
  it('declare the tables their function needs, so a missing one fails the cold start', () => {
    expect(listPetsFunction.tables).toEqual(['pets']);
    expect(createPetFunction.tables).toEqual(['counters', 'pets', 'idempotency']);
    expect(() =>
      createPetFunction.build(readFunctionConfig(createPetFunction.tables, { PETS_TABLE_NAME: 'p' })),
    ).toThrow('Environment variable COUNTERS_TABLE_NAME must be set');
  });
});

describe('environment variables', () => {
  it("name Powertools' own variables as Powertools reads them", () => {
    expect([ENV.logLevel, ENV.serviceName, ENV.metricsNamespace]).toEqual([
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_SERVICE_NAME',
      'POWERTOOLS_METRICS_NAMESPACE',
    ]);
  });
});
