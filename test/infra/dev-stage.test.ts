import { spawnSync } from 'node:child_process';
import { CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '#functions/operations';
import { OUTPUT } from '#infra/outputs';
import type { PetStoreStack } from '#infra/pet-store-stack';
import { PROJECT_ROOT } from '#infra/project-root';
import {
  DEV_NAME_MAX_LENGTH,
  parseStackShape,
  parseStageName,
  type StackShape,
  StageNameError,
  stackName,
} from '#infra/stage-names';
import { DEV_PLANS } from '#infra/stage-plans';
import { devStage, resolveStages, STAGE_DEFAULTS } from '#infra/stages';
import { ALL_TABLES } from '#shared/adapters/dynamodb/table-design';
import { ENV } from '#shared/config';
import { synthDevStage, synthStages, testOutdir } from '../support/pet-store-app';

/**
 * A developer's own stack, `dev-<name>`: the same service, isolated by name, and gone without a
 * trace after `cdk destroy`. Read from the synthesized template, as CloudFormation will.
 */

type Resource = {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};

const resourcesOf = (template: Template): Record<string, Resource> =>
  template.toJSON().Resources as Record<string, Resource>;

/** The same developer stage in each shape: lean, as `npm run deploy` makes it, and full (`--full`). */
const SHAPES = {
  lean: synthDevStage('dev-ann'),
  full: synthDevStage('dev-ann', 'full'),
} as const satisfies Record<StackShape, unknown>;
const { stack, template } = SHAPES.lean;

/** At most this many resources in a lean developer stack: a first deployment's to create and to read. */
const LEAN_RESOURCES_AT_MOST = 80;

/**
 * Names that must be unique in an account (and region), by resource type: a literal one would
 * collide with another stack's. Properties CloudFormation fills in when absent.
 */
const ACCOUNT_UNIQUE_NAMES: Readonly<Record<string, readonly string[]>> = {
  'AWS::DynamoDB::Table': ['TableName'],
  'AWS::Lambda::Function': ['FunctionName'],
  'AWS::IAM::Role': ['RoleName'],
  'AWS::IAM::ManagedPolicy': ['ManagedPolicyName'],
  'AWS::Logs::LogGroup': ['LogGroupName'],
  'AWS::Logs::QueryDefinition': ['Name'],
  'AWS::CloudWatch::Alarm': ['AlarmName'],
  'AWS::CloudWatch::Dashboard': ['DashboardName'],
  'AWS::SNS::Topic': ['TopicName'],
  'AWS::KMS::Alias': ['AliasName'],
  'AWS::ApiGateway::RestApi': ['Name'],
  'AWS::ApiGateway::UsagePlan': ['UsagePlanName'],
  'AWS::ApiGateway::ApiKey': ['Name'],
  'AWS::CodeDeploy::Application': ['ApplicationName'],
  'AWS::CodeDeploy::DeploymentGroup': ['DeploymentGroupName'],
  'AWS::WAFv2::WebACL': ['Name'],
};

/** A name as text: literals kept, a reference to one of the stack's own resources as `{Ref:<id>}`, the region as `{Region}`. */
const nameText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  const node = value as Record<string, unknown>;
  if ('Ref' in node) return node.Ref === 'AWS::Region' ? '{Region}' : `{Ref:${String(node.Ref)}}`;
  if ('Fn::GetAtt' in node) return `{Ref:${String((node['Fn::GetAtt'] as unknown[])[0])}}`;
  if ('Fn::Join' in node) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(nameText).join(separator);
  }
  throw new Error(`A name built in a way this test cannot read: ${JSON.stringify(value)}`);
};

/** Every account-unique name the template gives, with the resource that gives it. */
const physicalNames = (of: Record<string, Resource>) =>
  Object.entries(of).flatMap(([id, resource]) =>
    (ACCOUNT_UNIQUE_NAMES[resource.Type] ?? [])
      .filter((property) => resource.Properties?.[property] !== undefined)
      .map((property) => ({ id, type: resource.Type, name: nameText(resource.Properties?.[property]) })),
  );

describe('the name of a developer stage', () => {
  it.each(['dev-ann', 'dev-a', 'dev-ann2', `dev-${'a'.repeat(DEV_NAME_MAX_LENGTH)}`])(
    'accepts %s',
    (name) => {
      expect(parseStageName(name)).toBe(name);
    },
  );

  it.each([
    'dev-',
    'dev-Ann',
    'dev-ann-2',
    'dev-2ann',
    'dev-ann_b',
    `dev-${'a'.repeat(DEV_NAME_MAX_LENGTH + 1)}`,
    'ann',
    'prod',
  ])('refuses %s in one sentence naming the setting', (name) => {
    const refuse = () => parseStageName(name, '--stage');

    expect(refuse).toThrow(StageNameError);
    expect(refuse).toThrow(
      new RegExp(
        `^The setting --stage is "${name}": it must be staging, production or dev-<name>, [^\n]+\\.$`,
      ),
    );
  });

  it('fails the app, not a construct, on a bad stage context', () => {
    const refuse = () => resolveStages({ context: (key) => ({ stage: 'dev-Ann' })[key], env: {} });

    expect(refuse).toThrow(StageNameError);
    expect(refuse).toThrow(/^The setting -c stage is "dev-Ann"/);
  });

  it('stops cdk with that one sentence and no stack trace', () => {
    const app = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        CDK_CONTEXT_JSON: JSON.stringify({ stage: 'dev-Ann' }),
        CDK_OUTDIR: testOutdir(),
      },
    });

    expect(app.status).toBe(1);
    expect(app.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^The setting -c stage is "dev-Ann": .+\.$/),
    ]);
  });

  it('adds a stack named after the developer, and only when the context names a stage', () => {
    const withDev = resolveStages({ context: (key) => ({ stage: 'dev-ann' })[key], env: {} });
    const withStaging = resolveStages({ context: (key) => ({ stage: 'staging' })[key], env: {} });

    expect(withDev.map((stage) => stackName(stage.name))).toEqual([
      'PetStore-staging',
      'PetStore-production',
      'PetStore-dev-ann',
    ]);
    expect(withStaging.map((stage) => stage.name)).toEqual(['staging', 'production']);
    expect(stack.stackName).toBe('PetStore-dev-ann');
  });
});

describe.each(Object.entries(SHAPES))(
  'a %s developer stage leaves nothing behind after cdk destroy',
  (shape, { stack, template }) => {
    const resources = resourcesOf(template);

    it('holds no resource CloudFormation keeps: every deletion and replacement policy is Delete or absent', () => {
      const kept = Object.entries(resources).filter(
        ([, resource]) =>
          ![undefined, 'Delete'].includes(resource.DeletionPolicy) ||
          ![undefined, 'Delete'].includes(resource.UpdateReplacePolicy),
      );

      expect(kept).toEqual([]);
    });

    it('says Delete outright for everything that holds data: tables, log groups and, in a full stack, the alarm key', () => {
      const holdingData = ['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::KMS::Key'];
      const ofType = (type: string) => Object.values(resources).filter((resource) => resource.Type === type);

      expect(holdingData.filter((type) => ofType(type).length > 0)).toEqual(
        shape === 'full' ? holdingData : holdingData.filter((type) => type !== 'AWS::KMS::Key'),
      );
      for (const resource of holdingData.flatMap(ofType))
        expect([resource.DeletionPolicy, resource.UpdateReplacePolicy]).toEqual(['Delete', 'Delete']);
    });

    it('protects nothing from deletion: no table deletion protection, no stack termination protection', () => {
      template.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
      template.allResourcesProperties('AWS::DynamoDB::Table', {
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
      });

      expect(stack.terminationProtection).toBe(false);
    });

    it('keeps logs a week and, in a full stack, lets KMS delete the alarm key after its shortest wait, 7 days', () => {
      template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
      if (shape === 'full') template.allResourcesProperties('AWS::KMS::Key', { PendingWindowInDays: 7 });
      else template.resourceCountIs('AWS::KMS::Key', 0);
    });

    it('writes every function log and API log to a log group of its own template, so none is made outside it', () => {
      const logGroups = new Set(
        Object.entries(resources)
          .filter(([, resource]) => resource.Type === 'AWS::Logs::LogGroup')
          .map(([id]) => id),
      );
      const functions = Object.values(resources).filter(
        (resource) => resource.Type === 'AWS::Lambda::Function',
      );

      expect(functions.length).toBeGreaterThan(0);
      for (const fn of functions) {
        const logGroup = (fn.Properties?.LoggingConfig as { LogGroup?: { Ref?: string } } | undefined)
          ?.LogGroup;
        expect(logGroups.has(logGroup?.Ref ?? '')).toBe(true);
      }
      // API Gateway's execution log group, named as API Gateway would create it, by the stack first.
      const executionLogs = physicalNames(resources).filter(({ name }) =>
        name.startsWith('API-Gateway-Execution-Logs_'),
      );
      expect(executionLogs.map(({ name }) => name)).toEqual([
        'API-Gateway-Execution-Logs_{Ref:ApiCD79AAA0}/v1',
      ]);
    });

    it('has no custom resource, whose function and log group CloudFormation would not remove', () => {
      const custom = Object.values(resources).filter(
        (resource) =>
          resource.Type.startsWith('Custom::') || resource.Type === 'AWS::CloudFormation::CustomResource',
      );

      expect(custom).toEqual([]);
    });
  },
);

describe.each(Object.entries(SHAPES))('a %s developer stage is isolated by name', (_shape, { template }) => {
  const resources = resourcesOf(template);
  const others = [...Object.values(synthStages().templates), synthDevStage('dev-bob').template].map(
    resourcesOf,
  );

  it('names every account-wide resource after its own stack, or after one of its own resources', () => {
    const foreign = physicalNames(resources).filter(
      ({ name }) =>
        !name.startsWith('PetStore-dev-ann-') &&
        !name.startsWith('PetStore-dev-ann/') &&
        name !== 'PetStore-dev-ann' &&
        !/\{Ref:(?!AWS::)[A-Za-z0-9]+\}/.test(name),
    );

    expect(physicalNames(resources).length).toBeGreaterThan(0);
    expect(foreign).toEqual([]);
  });

  it("shares no name with staging, production or another developer's stack", () => {
    const ours = new Set(
      physicalNames(resources)
        .map(({ name }) => name)
        .filter((name) => !name.includes('{Ref:')),
    );
    const theirs = others.flatMap((other) => physicalNames(other).map(({ name }) => name));

    expect(ours.size).toBeGreaterThan(0);
    expect(theirs.filter((name) => ours.has(name))).toEqual([]);
  });

  it('exports no output: another stack could not come to depend on it, nor collide with its exports', () => {
    const outputs = (template.toJSON().Outputs ?? {}) as Record<string, { Export?: unknown }>;

    expect(Object.keys(outputs).length).toBeGreaterThan(0);
    expect(Object.values(outputs).filter((output) => output.Export !== undefined)).toEqual([]);
  });

  it('tags its functions and metrics with its own stage', () => {
    template.allResourcesProperties('AWS::Lambda::Function', {
      Environment: { Variables: { [ENV.stage]: 'dev-ann' } },
    });
  });
});

describe('a developer stage is small', () => {
  it("throttles and plans within staging's, deploys at once when full, and has no firewall in either shape", () => {
    const dev = devStage('dev-ann');

    expect(dev.throttling.rateLimit).toBeLessThanOrEqual(STAGE_DEFAULTS.staging.throttling.rateLimit);
    expect(dev.throttling.burstLimit).toBeLessThanOrEqual(STAGE_DEFAULTS.staging.throttling.burstLimit);
    for (const plan of Object.values(DEV_PLANS.plans)) {
      expect(plan.rateLimit).toBeLessThanOrEqual(dev.throttling.rateLimit);
      expect(plan.burstLimit).toBeLessThanOrEqual(dev.throttling.burstLimit);
    }
    for (const { template } of Object.values(SHAPES)) {
      template.resourceCountIs('AWS::WAFv2::WebACL', 0);
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: 10,
            ThrottlingBurstLimit: 20,
          }),
        ]),
      });
    }
    SHAPES.full.template.allResourcesProperties('AWS::CodeDeploy::DeploymentGroup', {
      DeploymentConfigName: 'CodeDeployDefault.LambdaAllAtOnce',
    });
    expect(dev.writeThrottling.rateLimit).toBeLessThanOrEqual(dev.throttling.rateLimit);
  });
});

/** Each resource of a stack by its construct path below the stack (`Api/Api/Resource`), its type as value. */
const resourcesByPath = (of: PetStoreStack): Map<string, string> =>
  new Map(
    of.node
      .findAll()
      .filter((node): node is CfnResource => CfnResource.isCfnResource(node) && Stack.of(node) === of)
      .map((resource) => [resource.node.path.slice(of.node.path.length + 1), resource.cfnResourceType]),
  );

/**
 * What a full stack adds, by construct: what operating needs (alarms and the rest, a log group per
 * function, the events' schema registry), and the `live` aliases CodeDeploy shifts.
 */
const OPERATING =
  /^(Monitoring|Deployments|LogQueries)\/|^[A-Za-z]+\/(Live|Function\/CurrentVersion|Logs)\/|^Events\/(Schemas|[A-Za-z]+Schema)$/;

describe('a developer stage is lean by default, full on request', () => {
  const lean = resourcesByPath(SHAPES.lean.stack);
  const full = resourcesByPath(SHAPES.full.stack);
  const leanTypes = new Set(lean.values());

  it(`is lean unless -c shape says full, and refuses any other shape in one sentence`, () => {
    expect(SHAPES.lean.stack.operations).toBeUndefined();
    expect(SHAPES.full.stack.operations).toBeDefined();
    expect(parseStackShape(undefined)).toBe('lean');
    expect(() => parseStackShape('Full')).toThrow(
      /^The setting -c shape is "Full": it must be lean or full \(lean when absent\)\.$/,
    );
    expect(() => resolveStages({ context: (key) => ({ shape: 'full' })[key], env: {} })).toThrow(
      /^The setting -c shape is for a developer stage \(-c stage=dev-<name>\): staging and production are always full\.$/,
    );
  });

  it(`holds at most ${LEAN_RESOURCES_AT_MOST} resources`, () => {
    expect(lean.size).toBeLessThanOrEqual(LEAN_RESOURCES_AT_MOST);
    expect(full.size).toBeGreaterThan(lean.size);
  });

  it("holds the service: a function per operation, the authorizer and the events' publisher, the API and its authorizer, every table, a usage plan per plan, the access log, one log group for the functions, the events' mapping, bus, archive and queue", () => {
    template.resourceCountIs('AWS::Lambda::Function', OPERATIONS.length + 2);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.resourceCountIs('AWS::Events::Archive', 1);
    template.resourceCountIs('AWS::SQS::Queue', 1);
    // The access log, API Gateway's execution log, and the one the functions share.
    template.resourceCountIs('AWS::Logs::LogGroup', 3);
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.resourceCountIs('AWS::DynamoDB::Table', ALL_TABLES.length);
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', Object.keys(DEV_PLANS.plans).length);
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
    });
  });

  it('leaves out what operating production needs: alarms and the filters they read, their topic and key, the dashboard, saved queries, versions, aliases and CodeDeploy', () => {
    const operating = [
      'AWS::CloudWatch::Alarm',
      'AWS::Logs::MetricFilter',
      'AWS::SNS::Topic',
      'AWS::SNS::TopicPolicy',
      'AWS::KMS::Key',
      'AWS::CloudWatch::Dashboard',
      'AWS::Logs::QueryDefinition',
      'AWS::Lambda::Version',
      'AWS::Lambda::Alias',
      'AWS::CodeDeploy::Application',
      'AWS::CodeDeploy::DeploymentGroup',
      'AWS::WAFv2::WebACL',
    ];

    expect(operating.filter((type) => leanTypes.has(type))).toEqual([]);
    expect(
      operating.filter(
        (type) => SHAPES.full.template.findResources(type) && new Set(full.values()).has(type),
      ),
    ).toEqual(operating.filter((type) => type !== 'AWS::WAFv2::WebACL'));
  });

  it('names in its outputs nothing it lacks: no dashboard, alarm topic or CodeDeploy application', () => {
    const outputs = (stack: PetStoreStack) => Object.keys(Template.fromStack(stack).toJSON().Outputs ?? {});
    const operatingOutputs: string[] = [OUTPUT.dashboard, OUTPUT.alarmTopic, OUTPUT.deployments];

    expect(outputs(SHAPES.lean.stack).filter((key) => operatingOutputs.includes(key))).toEqual([]);
    expect(outputs(SHAPES.full.stack)).toEqual(expect.arrayContaining(operatingOutputs));
  });

  it("is the full stack less exactly what operating needs, by construct: an alarm or widget added to monitoring is full's alone, a resource of the service is both's", () => {
    const onlyFull = [...full.keys()].filter((path) => !lean.has(path));
    const onlyLean = [...lean.keys()].filter((path) => !full.has(path));

    expect(onlyFull.length).toBeGreaterThan(0);
    expect(onlyFull.filter((path) => !OPERATING.test(path))).toEqual([]);
    // API Gateway's permission to invoke the authorizer sits on what it invokes: in a full stack the
    // alias (under `Authorizer/Live`), in a lean one the function; and the log group the functions share.
    expect(onlyLean.sort()).toEqual([
      expect.stringMatching(/^Authorizer\/Function\/[^/]+:Permissions$/),
      'FunctionLogs/Resource',
    ]);
    for (const path of lean.keys()) if (full.has(path)) expect(lean.get(path)).toBe(full.get(path));
  });
});
