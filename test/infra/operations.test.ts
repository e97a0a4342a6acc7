import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OUTPUT } from '#infra/outputs';
import { STAGE_DEFAULTS, STAGE_NAMES } from '#infra/stages';
import { ALL_TABLES } from '#shared/adapters/dynamodb/table-design';
import { ERROR_CODES } from '#shared/http/error-body';
import { OPERATIONS as ROUTES } from '#shared/operations/routes';
import { synthStages } from '../support/pet-store-app';
import { dashboardWidgets, functionId, referencedIds, resourcesOfType } from '../support/template-queries';

const { templates } = synthStages();

const AUTHORIZER = 'TOKEN authorizer: Authorization: Bearer <API key>';

describe.each(STAGE_NAMES)('%s operations', (stageName) => {
  const template = templates[stageName];
  const thresholds = STAGE_DEFAULTS[stageName].alarms;
  const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(
    ([, alarm]) => alarm.Properties ?? {},
  );
  const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
  const alarmOn = (metricName: string, dimension?: unknown) =>
    alarms.filter(
      (alarm) =>
        alarm.MetricName === metricName &&
        (dimension === undefined || JSON.stringify(alarm.Dimensions).includes(JSON.stringify(dimension))),
    );

  it('alarms when the share of 5xx answers passes the stage threshold', () => {
    expect(alarmOn('5XXError')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/ApiGateway',
        Statistic: 'Average',
        Threshold: thresholds.serverErrorRate,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    ]);
  });

  it('alarms when p99 latency passes the stage threshold', () => {
    expect(alarmOn('Latency')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/ApiGateway',
        ExtendedStatistic: 'p99',
        Threshold: thresholds.p99LatencyMs,
      }),
    ]);
  });

  it.each(ROUTES)('alarms on errors and throttles of the $operationId function', (route) => {
    const fn = { Ref: functionId(template, `${route.method} ${route.path} (${route.operationId})`) };

    expect(alarmOn('Errors', fn)).toEqual([
      expect.objectContaining({ Namespace: 'AWS/Lambda', Threshold: thresholds.functionErrors }),
    ]);
    expect(alarmOn('Throttles', fn)).toEqual([
      expect.objectContaining({ Namespace: 'AWS/Lambda', Threshold: thresholds.functionThrottles }),
    ]);
  });

  it('alarms on failures the authorizer logs, not on the keys it refuses', () => {
    const fn = { Ref: functionId(template, AUTHORIZER) };
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.level = "ERROR" }',
      LogGroupName: {
        Ref: [
          ...referencedIds(
            template.findResources('AWS::Lambda::Function')[fn.Ref]?.Properties.LoggingConfig.LogGroup,
          ),
        ][0],
      },
      MetricTransformations: [
        {
          MetricNamespace: 'PetStore',
          MetricName: 'AuthorizerFailures',
          MetricValue: '1',
          Dimensions: [{ Key: 'function_name', Value: '$.function_name' }],
        },
      ],
    });

    expect(alarmOn('AuthorizerFailures', fn)).toEqual([
      expect.objectContaining({ Namespace: 'PetStore', Threshold: thresholds.authorizerFailures }),
    ]);
    expect(alarmOn('Throttles', fn)).toHaveLength(1);
    // Lambda Errors of the authorizer count refused keys: "Unauthorized" is thrown, by design.
    expect(alarmOn('Errors', fn)).toEqual([]);
  });

  it.each(ALL_TABLES)('alarms on read and write throttle events of the $logicalName table', (design) => {
    const throttleAlarms = alarms.filter((alarm) =>
      JSON.stringify(alarm.Metrics ?? []).includes(`Tables${design.logicalName}`),
    );

    expect(throttleAlarms).toHaveLength(1);
    const metrics = JSON.stringify(throttleAlarms[0]?.Metrics);
    expect(metrics).toContain('ReadThrottleEvents');
    expect(metrics).toContain('WriteThrottleEvents');
    expect(throttleAlarms[0]?.Threshold).toBe(thresholds.tableThrottles);
  });

  it('sends every alarm, and its recovery, to the stage topic and to nothing else', () => {
    expect(alarms.length).toBe(2 + 2 * ROUTES.length + 2 + ALL_TABLES.length);
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
        TreatMissingData: 'notBreaching',
        EvaluationPeriods: thresholds.evaluationPeriods,
        DatapointsToAlarm: thresholds.datapointsToAlarm,
        AlarmDescription: expect.stringMatching(new RegExp(`^\\[${stageName}\\] `)),
      });
    }
  });

  it('encrypts the alarm topic with a rotating key that CloudWatch may use, and refuses publishing without TLS', () => {
    template.resourceCountIs('AWS::SNS::Topic', 1);
    const [keyId] = Object.keys(template.findResources('AWS::KMS::Key'));
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ],
      },
    });
  });

  it('draws a dashboard of requests, errors, latency, pets created, errors by code, Lambda and DynamoDB', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const widgets = dashboardWidgets(template);
    const graph = (title: string) => widgets.find((widget) => widget.title === title)?.metrics ?? [];
    const names = (title: string) => graph(title).map((metric) => `${metric.namespace}/${metric.name}`);
    const service = { service: 'pet-store', stage: stageName };

    expect(widgets[0]?.type).toBe('alarm');
    expect(names('Requests')).toEqual(['AWS/ApiGateway/Count']);
    expect(names('4xx / 5xx')).toEqual(['AWS/ApiGateway/4XXError', 'AWS/ApiGateway/5XXError']);
    expect(graph('Latency (ms)').map((metric) => [metric.name, metric.options.stat])).toEqual(
      expect.arrayContaining([
        ['Latency', 'p50'],
        ['Latency', 'p99'],
      ]),
    );
    expect(graph('Pets created')).toEqual([
      expect.objectContaining({ namespace: 'PetStore', name: 'PetsCreated', dimensions: service }),
    ]);
    expect(graph('Errors by code').map((metric) => metric.dimensions)).toEqual(
      ERROR_CODES.map((code) => ({ ...service, code })),
    );
    expect(graph('Lambda duration p99 (ms)')).toHaveLength(ROUTES.length + 1);
    expect(graph('Lambda errors')).toHaveLength(ROUTES.length + 1);
    expect(names('DynamoDB consumed read units')).toEqual(
      ALL_TABLES.map(() => 'AWS/DynamoDB/ConsumedReadCapacityUnits'),
    );
    expect(names('DynamoDB consumed write units')).toEqual(
      ALL_TABLES.map(() => 'AWS/DynamoDB/ConsumedWriteCapacityUnits'),
    );
    expect(names('DynamoDB throttle events')).toEqual(
      expect.arrayContaining(['AWS/DynamoDB/ReadThrottleEvents', 'AWS/DynamoDB/WriteThrottleEvents']),
    );
  });

  it('outputs the base URL ending in /v1/, the table names, the dashboard and the alarm topic', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual(
      [
        'AlarmTopicArn',
        'ApiKeysTableName',
        'ApiUrl',
        'CountersTableName',
        'DashboardName',
        'IdempotencyTableName',
        'PetsTableName',
      ].sort(),
    );
    const url = template.findOutputs(OUTPUT.apiUrl)[OUTPUT.apiUrl]?.Value['Fn::Join'][1] as unknown[];
    expect(url[0]).toBe('https://');
    expect(url.at(-1)).toBe('/');
    expect(referencedIds(url)).toEqual(
      new Set([
        Object.keys(template.findResources('AWS::ApiGateway::RestApi'))[0],
        Object.keys(template.findResources('AWS::ApiGateway::Stage'))[0],
      ]),
    );
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'v1' });
    for (const design of ALL_TABLES) {
      const output = template.findOutputs(`${design.logicalName}TableName`);
      expect([...referencedIds(output)][0]).toMatch(new RegExp(`^Tables${design.logicalName}`));
    }
    template.hasOutput(OUTPUT.alarmTopic, { Value: { Ref: topicId } });
    template.hasOutput(OUTPUT.dashboard, {
      Value: { Ref: Object.keys(template.findResources('AWS::CloudWatch::Dashboard'))[0] },
    });
  });
});
