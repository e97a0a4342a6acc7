import { describe, expect, it } from 'vitest';
import { AUTHORIZER_TIMEOUT, DEFAULT_MEMORY_MB, HANDLER_TIMEOUT } from '#infra/constructs/api-function';
import { ROUTES } from '#infra/routes';
import { STAGE_DEFAULTS, STAGE_NAMES } from '#infra/stages';
import { DYNAMODB_MAX_ATTEMPTS, DYNAMODB_REQUEST_TIMEOUT_MS } from '#shared/adapters/dynamodb/client';
import { synthStages } from '../support/pet-store-app';
import {
  actionsOf,
  functionId,
  referencedIds,
  resourcesOfType,
  roleOfFunction,
  type Statement,
  statementsOfRole,
} from '../support/template-queries';

const { templates } = synthStages();

const AUTHORIZER = 'TOKEN authorizer: Authorization: Bearer <API key>';
const descriptionOf = (operationId: string): string => {
  const route = ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`No route ${operationId}`);
  return `${route.method} ${route.path} (${route.operationId})`;
};

const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const READS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:Scan'];

/** The DynamoDB statements of a function's role, keyed by the table (logical id) they name. */
const dynamoDbAccess = (statements: readonly Statement[]): Map<string, string[]> => {
  const access = new Map<string, string[]>();
  for (const statement of statements) {
    const actions = [statement.Action].flat();
    if (!actions.some((action) => action.startsWith('dynamodb:'))) continue;
    for (const table of referencedIds(statement.Resource)) {
      access.set(table, [...(access.get(table) ?? []), ...actions]);
    }
  }
  return access;
};

describe.each(STAGE_NAMES)('%s functions', (stageName) => {
  const template = templates[stageName];
  const stage = STAGE_DEFAULTS[stageName];
  const tableId = (logicalName: string): string => {
    const [id] = Object.keys(template.findResources('AWS::DynamoDB::Table')).filter((candidate) =>
      candidate.startsWith(`Tables${logicalName}`),
    );
    if (!id) throw new Error(`No table ${logicalName}`);
    return id;
  };
  const access = (description: string) =>
    dynamoDbAccess(statementsOfRole(template, roleOfFunction(template, functionId(template, description))));
  const environment = (description: string) => {
    const fn = template.findResources('AWS::Lambda::Function')[functionId(template, description)];
    return fn?.Properties.Environment.Variables as Record<string, unknown>;
  };

  it('has one function per route plus the authorizer', () => {
    template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + 1);
  });

  it('runs every function on Node.js 22, arm64, with active X-Ray tracing and source maps', () => {
    for (const [, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        MemorySize: DEFAULT_MEMORY_MB,
        Environment: {
          Variables: {
            NODE_OPTIONS: '--enable-source-maps',
            POWERTOOLS_SERVICE_NAME: 'pet-store',
            POWERTOOLS_METRICS_NAMESPACE: 'PetStore',
            POWERTOOLS_LOG_LEVEL: stage.logLevel,
            PETSTORE_STAGE: stageName,
          },
        },
      });
    }
  });

  it('gives handlers 10 s and the authorizer 6 s', () => {
    for (const route of ROUTES) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: descriptionOf(route.operationId),
        Timeout: 10,
      });
    }
    template.hasResourceProperties('AWS::Lambda::Function', { Description: AUTHORIZER, Timeout: 6 });
  });

  it('writes each function to a log group of its own with the stage retention', () => {
    const logGroups = resourcesOfType(template, 'AWS::Lambda::Function').map(
      ([, fn]) => [...referencedIds((fn.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup)][0],
    );
    expect(new Set(logGroups).size).toBe(ROUTES.length + 1);
    for (const logGroup of logGroups) {
      expect(template.findResources('AWS::Logs::LogGroup')[logGroup ?? '']?.Properties).toEqual({
        RetentionInDays: stage.logRetention,
      });
    }
  });

  it('gives function roles no AWS managed policy, only writing to their own log group', () => {
    for (const [id, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      const role = roleOfFunction(template, id);
      expect(template.findResources('AWS::IAM::Role')[role]?.Properties.ManagedPolicyArns).toBeUndefined();
      const logStatements = statementsOfRole(template, role).filter((statement) =>
        actionsOf([statement]).some((action) => action.startsWith('logs:')),
      );
      expect(logStatements).toEqual([
        {
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Effect: 'Allow',
          Resource: { 'Fn::GetAtt': [[...referencedIds(fn.Properties.LoggingConfig)][0], 'Arn'] },
        },
      ]);
    }
  });

  it.each(ROUTES.filter((route) => route.access === 'read'))(
    'lets $operationId read the pets table and write nothing',
    (route) => {
      const tables = access(descriptionOf(route.operationId));

      expect([...tables.keys()]).toEqual([tableId('Pets')]);
      expect(tables.get(tableId('Pets'))).toEqual(expect.arrayContaining(READS));
      for (const write of WRITES) expect(tables.get(tableId('Pets'))).not.toContain(write);
      expect(environment(descriptionOf(route.operationId))).toMatchObject({
        PETS_TABLE_NAME: { Ref: tableId('Pets') },
      });
      expect(environment(descriptionOf(route.operationId))).not.toHaveProperty('COUNTERS_TABLE_NAME');
      expect(environment(descriptionOf(route.operationId))).not.toHaveProperty('API_KEYS_TABLE_NAME');
    },
  );

  it('lets createPet put pets and bump the id counter, and nothing else: no reads, no deletes', () => {
    const tables = access(descriptionOf('createPet'));

    expect([...tables.keys()].sort()).toEqual([tableId('Counters'), tableId('Pets')].sort());
    expect(tables.get(tableId('Pets'))).toEqual(['dynamodb:PutItem']);
    expect(tables.get(tableId('Counters'))).toEqual(['dynamodb:UpdateItem']);
    expect(environment(descriptionOf('createPet'))).toMatchObject({
      PETS_TABLE_NAME: { Ref: tableId('Pets') },
      COUNTERS_TABLE_NAME: { Ref: tableId('Counters') },
    });
    expect(environment(descriptionOf('createPet'))).not.toHaveProperty('API_KEYS_TABLE_NAME');
  });

  it('lets the authorizer read API keys and nothing else', () => {
    const tables = access(AUTHORIZER);

    expect([...tables.keys()]).toEqual([tableId('ApiKeys')]);
    expect(tables.get(tableId('ApiKeys'))).toContain('dynamodb:GetItem');
    for (const write of WRITES) expect(tables.get(tableId('ApiKeys'))).not.toContain(write);
    expect(environment(AUTHORIZER)).toMatchObject({ API_KEYS_TABLE_NAME: { Ref: tableId('ApiKeys') } });
    expect(environment(AUTHORIZER)).not.toHaveProperty('PETS_TABLE_NAME');
  });
});

describe('timeout ladder', () => {
  // Standard retry strategy: up to 2 back-offs between 3 attempts, each at most a few hundred ms.
  const sdkBudgetMs = DYNAMODB_MAX_ATTEMPTS * DYNAMODB_REQUEST_TIMEOUT_MS + 2 * 300;

  it('lets one DynamoDB call give up before the authorizer times out', () => {
    expect(sdkBudgetMs).toBeLessThan(AUTHORIZER_TIMEOUT.toMilliseconds());
  });

  it('lets a handler outlast one DynamoDB call and answer before API Gateway gives up at 29 s', () => {
    expect(sdkBudgetMs).toBeLessThan(HANDLER_TIMEOUT.toMilliseconds());
    expect(AUTHORIZER_TIMEOUT.toMilliseconds()).toBeLessThanOrEqual(HANDLER_TIMEOUT.toMilliseconds());
    expect(HANDLER_TIMEOUT.toMilliseconds()).toBeLessThan(29_000);
  });
});
