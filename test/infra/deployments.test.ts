import { describe, expect, it } from 'vitest';
import { OUTPUT } from '#infra/outputs';
import { STAGE_NAMES } from '#infra/stage-names';
import { DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION, DOCUMENTED_DEPLOYMENTS } from '../support/documented-stages';
import {
  API_FUNCTIONS,
  AUTHORIZER_FUNCTION,
  PUBLISHER_FUNCTION,
  STACK_FUNCTIONS,
} from '../support/functions';
import { synthStages } from '../support/pet-store-app';
import {
  type CfnResource,
  functionId,
  liveAliasOf,
  referencedIds,
  resourcesOfType,
} from '../support/template-queries';

const { templates } = synthStages();

/** Every function, by the name its deployment group and alarms carry, and its description. */
const FUNCTIONS = STACK_FUNCTIONS.map(({ name, description }) => [name, description] as const);
const OPERATION_FUNCTIONS = FUNCTIONS.filter(
  ([name]) => name !== AUTHORIZER_FUNCTION.name && name !== PUBLISHER_FUNCTION.name,
);

describe.each(STAGE_NAMES)('%s gradual deployments', (stageName) => {
  const template = templates[stageName];
  const documented = DOCUMENTED_DEPLOYMENTS[stageName];
  const resources = template.toJSON().Resources as Record<string, CfnResource & { UpdatePolicy?: unknown }>;
  const groups = resourcesOfType(template, 'AWS::CodeDeploy::DeploymentGroup');
  const alarm = (id: string) => resources[id]?.Properties ?? {};
  /** The alarms the deployment group of the function named `name` rolls back on. */
  const rollbackAlarmsOf = (name: string) => {
    const [, group] = groups.find(([id]) => id.startsWith(`Deployments${name}`)) ?? [];
    if (!group) throw new Error(`No deployment group for ${name}`);
    return [...referencedIds(group.Properties.AlarmConfiguration)].map(alarm);
  };

  it.each(FUNCTIONS)('publishes %s as a version behind the alias live', (_name, description) => {
    const fn = functionId(template, description);
    const alias = resources[liveAliasOf(template, fn)];
    const [versionId] = [...referencedIds(alias?.Properties.FunctionVersion)];

    expect(resources[versionId ?? '']).toMatchObject({
      Type: 'AWS::Lambda::Version',
      Properties: { FunctionName: { Ref: fn } },
    });
  });

  it('lets API Gateway invoke the live aliases only, never a function itself', () => {
    const invoked = resourcesOfType(template, 'AWS::Lambda::Permission')
      .filter(([, permission]) => permission.Properties.Principal === 'apigateway.amazonaws.com')
      .map(([, permission]) => [...referencedIds(permission.Properties.FunctionName)]);
    const aliases = API_FUNCTIONS.map(({ description }) =>
      liveAliasOf(template, functionId(template, description)),
    );

    // One permission per method of an operation, and the authorizer's; the stream invokes the publisher.
    expect(invoked).toHaveLength(API_FUNCTIONS.length);
    expect(invoked.map(([target]) => target).sort()).toEqual([...aliases].sort());
  });

  it('has one CodeDeploy application for Lambda, named in an output, with a deployment group per function', () => {
    template.resourceCountIs('AWS::CodeDeploy::Application', 1);
    template.hasResourceProperties('AWS::CodeDeploy::Application', { ComputePlatform: 'Lambda' });
    template.hasOutput(OUTPUT.deployments, {
      Value: { Ref: Object.keys(template.findResources('AWS::CodeDeploy::Application'))[0] },
    });
    expect(groups).toHaveLength(FUNCTIONS.length);
  });

  it.each(FUNCTIONS)(
    `deploys %s with ${documented.config}, rolled back when it fails, is stopped or an alarm fires`,
    (name, description) => {
      const aliasId = liveAliasOf(template, functionId(template, description));
      const [groupId, group] = groups.find(([id]) => id.startsWith(`Deployments${name}`)) ?? [];

      expect(group?.Properties).toMatchObject({
        DeploymentConfigName: documented.config,
        DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
        AutoRollbackConfiguration: {
          Enabled: true,
          Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM'],
        },
        AlarmConfiguration: { Enabled: true },
      });
      // CloudFormation hands the move of the alias to this group.
      expect(resources[aliasId]?.UpdatePolicy).toEqual({
        CodeDeployLambdaAliasUpdate: {
          ApplicationName: { Ref: expect.stringMatching(/^DeploymentsApplication/) },
          DeploymentGroupName: { Ref: groupId },
        },
      });
    },
  );

  it.each(OPERATION_FUNCTIONS)(
    'rolls %s back on its live alias: a crash or timeout, a 5xx answer, a slow p99, each within a minute or two',
    (name, description) => {
      const fn = { Ref: functionId(template, description) };
      const live = { 'Fn::Join': ['', [fn, ':live']] };
      const onAlias = [
        { Name: 'FunctionName', Value: fn },
        { Name: 'Resource', Value: live },
      ];

      expect(rollbackAlarmsOf(name)).toEqual([
        expect.objectContaining({
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: onAlias,
          Statistic: 'Sum',
          Threshold: documented.functionErrors,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          ...DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION,
        }),
        expect.objectContaining({
          Namespace: 'PetStore',
          MetricName: 'ServerErrors',
          Dimensions: [{ Name: 'function_name', Value: fn }],
          Statistic: 'Sum',
          Threshold: documented.functionServerErrors,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          ...DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION,
        }),
        expect.objectContaining({
          Namespace: 'AWS/Lambda',
          MetricName: 'Duration',
          Dimensions: onAlias,
          ExtendedStatistic: 'p99',
          Threshold: documented.functionP99DurationMs,
          ComparisonOperator: 'GreaterThanThreshold',
          ...DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION,
        }),
      ]);
    },
  );

  it.each(OPERATION_FUNCTIONS)(
    'counts the 5xx answers of %s from the ERROR lines of its own logs',
    (_name, description) => {
      const fn = resources[functionId(template, description)];
      const logGroup = [...referencedIds(fn?.Properties.LoggingConfig)][0];

      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        FilterPattern: '{ $.level = "ERROR" }',
        LogGroupName: { Ref: logGroup },
        MetricTransformations: [
          {
            MetricNamespace: 'PetStore',
            MetricName: 'ServerErrors',
            MetricValue: '1',
            Dimensions: [{ Key: 'function_name', Value: '$.function_name' }],
          },
        ],
      });
    },
  );

  it('rolls the authorizer back on the failures it logs and a slow p99, not on the keys it refuses', () => {
    const fn = { Ref: functionId(template, AUTHORIZER_FUNCTION.description) };

    expect(rollbackAlarmsOf('Authorizer')).toEqual([
      expect.objectContaining({
        Namespace: 'PetStore',
        MetricName: 'AuthorizerFailures',
        Dimensions: [{ Name: 'function_name', Value: fn }],
        Threshold: documented.authorizerFailures,
        ...DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION,
      }),
      expect.objectContaining({
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        Dimensions: [
          { Name: 'FunctionName', Value: fn },
          { Name: 'Resource', Value: { 'Fn::Join': ['', [fn, ':live']] } },
        ],
        ExtendedStatistic: 'p99',
        Threshold: documented.functionP99DurationMs,
        ...DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION,
      }),
    ]);
  });

  it('rolls the events publisher back on its crashes and timeouts, and on the records it logs it could not publish, and has the stream invoke its live alias', () => {
    const fn = { Ref: functionId(template, PUBLISHER_FUNCTION.description) };
    const [, mapping] = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')[0] ?? [];

    expect(rollbackAlarmsOf(PUBLISHER_FUNCTION.name)).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [
          { Name: 'FunctionName', Value: fn },
          { Name: 'Resource', Value: { 'Fn::Join': ['', [fn, ':live']] } },
        ],
        Threshold: documented.functionErrors,
        ...DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION,
      }),
      expect.objectContaining({
        Namespace: 'PetStore',
        MetricName: 'PublishFailures',
        Dimensions: [{ Name: 'function_name', Value: fn }],
        Threshold: documented.publisherErrors,
        ...DOCUMENTED_DEPLOYMENT_ALARM_EVALUATION,
      }),
    ]);
    expect(mapping?.Properties.FunctionName).toEqual({
      Ref: liveAliasOf(template, functionId(template, PUBLISHER_FUNCTION.description)),
    });
  });

  it('tells the stage topic when a rollback alarm fires, and when it recovers', () => {
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
    const rollbackAlarms = FUNCTIONS.flatMap(([name]) => rollbackAlarmsOf(name));

    expect(rollbackAlarms).toHaveLength(3 * OPERATION_FUNCTIONS.length + 2 + 2);
    for (const properties of rollbackAlarms) {
      expect(properties).toMatchObject({
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
        AlarmDescription: expect.stringMatching(new RegExp(`^\\[${stageName}\\] .*rolls back a deployment$`)),
      });
    }
  });
});
