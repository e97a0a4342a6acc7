import { describe, expect, it } from 'vitest';
import { authorizerFunction } from '#functions/authorizer';
import { createPet } from '#functions/create-pet';
import { deletePet } from '#functions/delete-pet';
import { getPet } from '#functions/get-pet';
import { listPets } from '#functions/list-pets';
import { OPERATIONS } from '#functions/operations';
import { updatePet } from '#functions/update-pet';
import { AUTHORIZER_TIMEOUT, DEFAULT_MEMORY_MB, HANDLER_TIMEOUT } from '#infra/constructs/api-function';
import { describeOperation } from '#infra/pet-store-stack';
import { STAGE_NAMES } from '#infra/stage-names';
import {
  DYNAMODB_CALL_BUDGET_MS,
  DYNAMODB_HTTP_OPTIONS,
  DYNAMODB_MAX_ATTEMPTS,
  DYNAMODB_REQUEST_TIMEOUT_MS,
  timeBudget,
} from '#shared/adapters/dynamodb/client';
import { ENV, type TableKey } from '#shared/config';
import { REQUEST_BUDGET_MS } from '#shared/deadline';
import { TIMEOUT_MARGIN_MS } from '#shared/http/endpoint';
import { DOCUMENTED_STAGES } from '../support/documented-stages';
import {
  AUTHORIZER_FUNCTION,
  OPERATION_FUNCTIONS,
  PUBLISHER_FUNCTION,
  STACK_FUNCTIONS,
} from '../support/functions';
import { synthStages } from '../support/pet-store-app';
import {
  actionsOf,
  functionId,
  referencedIds,
  resourcesOfType,
  roleOfFunction,
  statementsOfRole,
} from '../support/template-queries';

const { templates } = synthStages();

/** The functions, by the descriptions the stack gives them. */
const [LIST_PETS, CREATE_PET, GET_PET, UPDATE_PET, DELETE_PET] = [
  listPets,
  createPet,
  getPet,
  updatePet,
  deletePet,
].map(describeOperation) as [string, string, string, string, string];
const AUTHORIZER = AUTHORIZER_FUNCTION.description;

describe.each(STAGE_NAMES)('%s functions', (stageName) => {
  const template = templates[stageName];
  const stage = DOCUMENTED_STAGES[stageName];
  const tableId = (logicalName: string): string => {
    const [id] = Object.keys(template.findResources('AWS::DynamoDB::Table')).filter((candidate) =>
      candidate.startsWith(`Tables${logicalName}`),
    );
    if (!id) throw new Error(`No table ${logicalName}`);
    return id;
  };
  const environment = (description: string) => {
    const fn = template.findResources('AWS::Lambda::Function')[functionId(template, description)];
    return fn?.Properties.Environment.Variables as Record<string, unknown>;
  };

  it('has one function per route, the authorizer and the events publisher', () => {
    template.resourceCountIs('AWS::Lambda::Function', OPERATION_FUNCTIONS.length + 2);
    template.resourceCountIs('AWS::Lambda::Function', STACK_FUNCTIONS.length);
  });

  it('runs every function on Node.js 24, arm64, with active X-Ray tracing and no runtime source maps', () => {
    for (const [, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        MemorySize: DEFAULT_MEMORY_MB,
        Environment: {
          Variables: {
            POWERTOOLS_SERVICE_NAME: 'pet-store',
            POWERTOOLS_METRICS_NAMESPACE: 'PetStore',
            POWERTOOLS_LOG_LEVEL: stage.logLevel,
            PETSTORE_STAGE: stageName,
          },
        },
      });
      // Node would read the map and walk the whole bundle at every cold start: a stack is mapped when it is logged instead.
      expect(fn.Properties).not.toHaveProperty(['Environment', 'Variables', 'NODE_OPTIONS']);
    }
  });

  it('gives handlers and the events publisher 15 s, and the authorizer 6 s', () => {
    for (const { description } of [...OPERATION_FUNCTIONS, PUBLISHER_FUNCTION]) {
      template.hasResourceProperties('AWS::Lambda::Function', { Description: description, Timeout: 15 });
    }
    template.hasResourceProperties('AWS::Lambda::Function', { Description: AUTHORIZER, Timeout: 6 });
  });

  it('writes each function to a log group of its own with the stage retention', () => {
    const logGroups = resourcesOfType(template, 'AWS::Lambda::Function').map(
      ([, fn]) => [...referencedIds((fn.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup)][0],
    );
    expect(new Set(logGroups).size).toBe(STACK_FUNCTIONS.length);
    for (const logGroup of logGroups) {
      expect(template.findResources('AWS::Logs::LogGroup')[logGroup ?? '']?.Properties).toEqual({
        RetentionInDays: stage.logRetentionDays,
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

  /** A role's DynamoDB statements as `actions on resource`, the resource written with logical ids. */
  const dynamoDbGrants = (description: string): string[] =>
    statementsOfRole(template, roleOfFunction(template, functionId(template, description)))
      .filter((statement) => actionsOf([statement]).some((action) => action.startsWith('dynamodb:')))
      .map((statement) => `${actionsOf([statement]).sort().join(',')} on ${resourceName(statement.Resource)}`)
      .sort();
  const resourceName = (resource: unknown): string => {
    const text = JSON.stringify(resource);
    const table = /"Fn::GetAtt":\["(Tables[A-Za-z]+?)[0-9A-F]{8}","Arn"\]/.exec(text)?.[1];
    const index = /\/index\/([^"]+)"/.exec(text)?.[1];
    return `${table ?? text}${index ? `/index/${index}` : ''}`;
  };

  it.each([
    ...OPERATIONS.map((fn) => [describeOperation(fn.operation), fn] as const),
    [AUTHORIZER, authorizerFunction] as const,
  ])('lets %s make exactly the calls its uses declare, and sets exactly their tables', (description, fn) => {
    const logicalNames: Record<TableKey, string> = {
      pets: 'Pets',
      counters: 'Counters',
      apiKeys: 'ApiKeys',
      idempotency: 'Idempotency',
    };
    const byResource = new Map<string, Set<string>>();
    for (const { table, index, actions } of fn.data) {
      const resource = `Tables${logicalNames[table]}${index ? `/index/${index}` : ''}`;
      byResource.set(resource, new Set([...(byResource.get(resource) ?? []), ...actions]));
    }
    const declared = [...byResource].map(
      ([resource, actions]) => `${[...actions].sort().join(',')} on ${resource}`,
    );

    expect(dynamoDbGrants(description)).toEqual(declared.sort());
    expect(
      Object.keys(environment(description))
        .filter((name) => name.endsWith('_TABLE_NAME'))
        .sort(),
    ).toEqual(fn.tables.map((table) => ENV.tables[table]).sort());
  });

  it('lets listPets Scan the pets table and Query its status index, and nothing else', () => {
    expect(dynamoDbGrants(LIST_PETS)).toEqual([
      'dynamodb:Query on TablesPets/index/status-shard-index',
      'dynamodb:Scan on TablesPets',
    ]);
    expect(environment(LIST_PETS)).toEqual(
      expect.objectContaining({ PETS_TABLE_NAME: { Ref: tableId('Pets') } }),
    );
    expect(environment(LIST_PETS)).not.toHaveProperty('COUNTERS_TABLE_NAME');
    expect(environment(LIST_PETS)).not.toHaveProperty('API_KEYS_TABLE_NAME');
  });

  it('lets updatePet only UpdateItem, and deletePet only DeleteItem, on the pets table', () => {
    expect(dynamoDbGrants(UPDATE_PET)).toEqual(['dynamodb:UpdateItem on TablesPets']);
    expect(dynamoDbGrants(DELETE_PET)).toEqual(['dynamodb:DeleteItem on TablesPets']);
    for (const description of [UPDATE_PET, DELETE_PET]) {
      expect(Object.keys(environment(description)).filter((name) => name.endsWith('_TABLE_NAME'))).toEqual([
        'PETS_TABLE_NAME',
      ]);
    }
  });

  it('lets getPet GetItem on the pets table, and nothing else', () => {
    expect(dynamoDbGrants(GET_PET)).toEqual(['dynamodb:GetItem on TablesPets']);
    expect(environment(GET_PET)).toEqual(
      expect.objectContaining({ PETS_TABLE_NAME: { Ref: tableId('Pets') } }),
    );
    expect(environment(GET_PET)).not.toHaveProperty('COUNTERS_TABLE_NAME');
  });

  it('lets createPet put pets, bump the id counter and keep its idempotency records, and nothing else: no reads, no deletes', () => {
    expect(dynamoDbGrants(CREATE_PET)).toEqual([
      'dynamodb:PutItem on TablesPets',
      'dynamodb:PutItem,dynamodb:UpdateItem on TablesIdempotency',
      'dynamodb:UpdateItem on TablesCounters',
    ]);
    expect(environment(CREATE_PET)).toMatchObject({
      PETS_TABLE_NAME: { Ref: tableId('Pets') },
      COUNTERS_TABLE_NAME: { Ref: tableId('Counters') },
      IDEMPOTENCY_TABLE_NAME: { Ref: tableId('Idempotency') },
    });
    expect(environment(CREATE_PET)).not.toHaveProperty('API_KEYS_TABLE_NAME');
  });

  it('lets no function but createPet near the idempotency table', () => {
    for (const description of [LIST_PETS, GET_PET, AUTHORIZER]) {
      expect(dynamoDbGrants(description).filter((grant) => grant.includes('Idempotency'))).toEqual([]);
      expect(environment(description)).not.toHaveProperty('IDEMPOTENCY_TABLE_NAME');
    }
  });

  it('lets the authorizer GetItem on the API keys table, and nothing else', () => {
    expect(dynamoDbGrants(AUTHORIZER)).toEqual(['dynamodb:GetItem on TablesApiKeys']);
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

  it('configures every DynamoDB client with attempts of 1 s that throw, 3 at most: 3.15 s for a call made outside a request', () => {
    expect(timeBudget()).toEqual({ maxAttempts: 3, requestHandler: expect.anything() });
    expect(DYNAMODB_HTTP_OPTIONS).toMatchObject({
      requestTimeout: 1_000,
      connectionTimeout: 1_000,
      // Without it the SDK only logs a warning when the request timeout passes, and waits on.
      throwOnRequestTimeout: true,
    });
    expect(DYNAMODB_CALL_BUDGET_MS).toBe(3_150);
  });

  it('ends all of a request’s DynamoDB calls at one deadline, 3 s after it was received: within the 4 s a client is promised, before either Lambda times out', () => {
    expect(REQUEST_BUDGET_MS).toBe(3_000);
    expect(REQUEST_BUDGET_MS).toBeLessThan(4_000);
    expect(REQUEST_BUDGET_MS).toBeLessThan(AUTHORIZER_TIMEOUT.toMilliseconds());
    expect(REQUEST_BUDGET_MS).toBeLessThan(HANDLER_TIMEOUT.toMilliseconds() - TIMEOUT_MARGIN_MS);
    expect(HANDLER_TIMEOUT.toMilliseconds() - TIMEOUT_MARGIN_MS).toBe(14_500);
  });

  it('lets a handler outlast one DynamoDB call and answer before API Gateway gives up at 29 s', () => {
    expect(sdkBudgetMs).toBeLessThan(HANDLER_TIMEOUT.toMilliseconds());
    expect(AUTHORIZER_TIMEOUT.toMilliseconds()).toBeLessThanOrEqual(HANDLER_TIMEOUT.toMilliseconds());
    expect(HANDLER_TIMEOUT.toMilliseconds()).toBeLessThan(29_000);
  });
});
