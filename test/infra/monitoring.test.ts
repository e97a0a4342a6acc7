import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '#functions/operations';
import { OUTPUT } from '#infra/outputs';
import { describeOperation } from '#infra/pet-store-stack';
import { STAGE_NAMES } from '#infra/stage-names';
import { ALL_TABLES } from '#shared/adapters/dynamodb/table-design';
import { DOCUMENTED_ALARM_EVALUATION, DOCUMENTED_STAGES } from '../support/documented-stages';
import { AUTHORIZER_FUNCTION, PUBLISHER_FUNCTION, STACK_FUNCTIONS } from '../support/functions';
import { synthStages } from '../support/pet-store-app';
import {
  dashboardWidgets,
  deploymentAlarmIds,
  functionId,
  referencedIds,
  resourcesOfType,
} from '../support/template-queries';

const { templates } = synthStages();

const AUTHORIZER = AUTHORIZER_FUNCTION.description;
/** Every operation's function, by its operation id and the description the stack gives it. */
const OPERATION_FUNCTIONS = OPERATIONS.map(
  ({ operation }) => [operation.operationId, describeOperation(operation)] as const,
);
const TABLES = ['Pets', 'Counters', 'ApiKeys', 'Idempotency'] as const;
/** Every global secondary index of the table design, with its table's logical name. */
const INDEXES = ALL_TABLES.flatMap((design) =>
  design.indexes.map(({ indexName }) => [design.logicalName, indexName] as const),
);

interface AlarmMetric {
  readonly Id: string;
  readonly MetricStat?: {
    readonly Metric: {
      readonly MetricName: string;
      readonly Dimensions: readonly { readonly Name: string; readonly Value: unknown }[];
    };
  };
}

const sorted = (dimensions: Record<string, unknown>) => JSON.stringify(Object.entries(dimensions).sort());

/** An alarm's DynamoDB throttle metrics, each as its name and its dimensions by name. */
const throttleMetricsOf = (alarm: Record<string, unknown>) =>
  ((alarm.Metrics ?? []) as AlarmMetric[]).flatMap(({ MetricStat }) =>
    MetricStat?.Metric.MetricName.endsWith('ThrottleEvents')
      ? [
          {
            name: MetricStat.Metric.MetricName,
            dimensions: Object.fromEntries(
              MetricStat.Metric.Dimensions.map(({ Name, Value }) => [Name, Value]),
            ),
          },
        ]
      : [],
  );
/** Every Error code, in the order docs/interface.md lists them. */
const ERROR_CODES = [
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'IDEMPOTENCY_KEY_IN_USE',
  'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
  'TOO_MANY_REQUESTS',
  'QUOTA_EXCEEDED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

describe.each(STAGE_NAMES)('%s monitoring', (stageName) => {
  const template = templates[stageName];
  const thresholds = DOCUMENTED_STAGES[stageName].alarms;
  /** The stage's alarms; those that roll back deployments are tested in deployments.test.ts. */
  const rollbackAlarms = deploymentAlarmIds(template);
  const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm')
    .filter(([id]) => !rollbackAlarms.has(id))
    .map(([, alarm]) => alarm.Properties ?? {});
  const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
  const alarmOn = (metricName: string, dimension?: unknown) =>
    alarms.filter(
      (alarm) =>
        alarm.MetricName === metricName &&
        (dimension === undefined || JSON.stringify(alarm.Dimensions).includes(JSON.stringify(dimension))),
    );

  it('alarms when the share of 5xx answers goes above the stage threshold in a 5-minute period', () => {
    expect(alarmOn('5XXError')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/ApiGateway',
        Statistic: 'Average',
        Period: 300,
        Threshold: thresholds.serverErrorRate,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    ]);
  });

  it('alarms when p99 latency goes above the stage threshold in a 5-minute period', () => {
    expect(alarmOn('Latency')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/ApiGateway',
        ExtendedStatistic: 'p99',
        Period: 300,
        Threshold: thresholds.p99LatencyMs,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    ]);
  });

  it.each(OPERATION_FUNCTIONS)(
    'alarms on errors and throttles of the %s function, at or above the threshold',
    (_name, description) => {
      const fn = { Ref: functionId(template, description) };
      const counted = {
        Namespace: 'AWS/Lambda',
        Statistic: 'Sum',
        Period: 300,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      };

      expect(alarmOn('Errors', fn)).toEqual([
        expect.objectContaining({ ...counted, Threshold: thresholds.functionErrors }),
      ]);
      expect(alarmOn('Throttles', fn)).toEqual([
        expect.objectContaining({ ...counted, Threshold: thresholds.functionThrottles }),
      ]);
    },
  );

  it.each(OPERATION_FUNCTIONS)(
    'counts the errors the %s function answers by code, from the line each one logs: no function publishes them',
    (_name, description) => {
      const logGroup = [
        ...referencedIds(
          template.findResources('AWS::Lambda::Function')[functionId(template, description)]?.Properties
            .LoggingConfig.LogGroup,
        ),
      ][0];

      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        FilterPattern: '{ $.code = "*" }',
        LogGroupName: { Ref: logGroup },
        MetricTransformations: [
          {
            MetricNamespace: 'PetStore',
            MetricName: 'Errors',
            MetricValue: '1',
            Dimensions: [
              { Key: 'function_name', Value: '$.function_name' },
              { Key: 'code', Value: '$.code' },
            ],
          },
        ],
      });
    },
  );

  it("counts, from the access log, each method API Gateway refuses for the key's scopes, per API", () => {
    const [accessLogs] = resourcesOfType(template, 'AWS::ApiGateway::Stage').flatMap(([, stage]) => [
      ...referencedIds((stage.Properties.AccessLogSetting as { DestinationArn: unknown }).DestinationArn),
    ]);

    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.errorType = "ACCESS_DENIED" }',
      LogGroupName: { Ref: accessLogs },
      MetricTransformations: [
        {
          MetricNamespace: 'PetStore',
          MetricName: 'GatewayResponses',
          MetricValue: '1',
          Dimensions: [
            { Key: 'api_id', Value: '$.apiId' },
            { Key: 'response_type', Value: '$.errorType' },
          ],
        },
      ],
    });
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

  const tableRef = (logicalName: string) => {
    const ids = Object.keys(template.findResources('AWS::DynamoDB::Table')).filter((id) =>
      id.startsWith(`Tables${logicalName}`),
    );
    expect(ids).toHaveLength(1);
    return { Ref: ids[0] };
  };
  /** The alarms that watch exactly these dimensions' read and write throttle events, and no others. */
  const throttleAlarmsOn = (dimensions: Record<string, unknown>) =>
    alarms.filter((alarm) => {
      const metrics = throttleMetricsOf(alarm);
      return (
        metrics
          .map(({ name }) => name)
          .sort()
          .join() === 'ReadThrottleEvents,WriteThrottleEvents' &&
        metrics.every((metric) => sorted(metric.dimensions) === sorted(dimensions))
      );
    });

  it.each(TABLES)('alarms on read and write throttle events of the %s table', (table) => {
    const throttleAlarms = throttleAlarmsOn({ TableName: tableRef(table) });

    expect(throttleAlarms).toHaveLength(1);
    expect(throttleAlarms[0]).toMatchObject({
      Threshold: thresholds.tableThrottles,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  // The TableName dimension alone counts the table's throttles, not its indexes' (DynamoDB's metrics reference).
  it.each(INDEXES)(
    'alarms on read and write throttle events of the %s table’s index %s, by its own dimensions',
    (table, indexName) => {
      const throttleAlarms = throttleAlarmsOn({
        TableName: tableRef(table),
        GlobalSecondaryIndexName: indexName,
      });

      expect(throttleAlarms).toHaveLength(1);
      expect(throttleAlarms[0]).toMatchObject({
        Threshold: thresholds.tableThrottles,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmDescription: expect.stringContaining(indexName),
      });
    },
  );

  it("alarms on the events: the stream's lag behind the writes, the publisher's errors and records not published, and any batch given up on", () => {
    const publisher = { Ref: functionId(template, PUBLISHER_FUNCTION.description) };
    const [queueId] = Object.keys(template.findResources('AWS::SQS::Queue'));
    const publisherErrors = alarms.filter((alarm) =>
      JSON.stringify(alarm.Metrics ?? []).includes('PublishFailures'),
    );

    expect(alarmOn('IteratorAge')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/Lambda',
        Dimensions: [{ Name: 'FunctionName', Value: publisher }],
        Statistic: 'Maximum',
        Period: 300,
        Threshold: thresholds.eventsIteratorAgeMs,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    ]);
    expect(alarmOn('ApproximateNumberOfMessagesVisible')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/SQS',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
        Statistic: 'Maximum',
        Threshold: thresholds.eventFailuresQueued,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    ]);
    expect(publisherErrors).toHaveLength(1);
    expect(publisherErrors[0]).toMatchObject({
      Threshold: thresholds.publisherErrors,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const terms = ((publisherErrors[0]?.Metrics ?? []) as { MetricStat?: { Metric: unknown } }[])
      .flatMap(({ MetricStat }) => (MetricStat ? [MetricStat.Metric] : []))
      .map((metric) => JSON.stringify(metric));
    expect(terms).toEqual([
      JSON.stringify({
        Dimensions: [{ Name: 'FunctionName', Value: publisher }],
        MetricName: 'Errors',
        Namespace: 'AWS/Lambda',
      }),
      JSON.stringify({
        Dimensions: [{ Name: 'function_name', Value: publisher }],
        MetricName: 'PublishFailures',
        Namespace: 'PetStore',
      }),
    ]);
    // Its ERROR lines are the records it could not publish.
    const logGroup = [
      ...referencedIds(
        template.findResources('AWS::Lambda::Function')[functionId(template, PUBLISHER_FUNCTION.description)]
          ?.Properties.LoggingConfig,
      ),
    ][0];
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.level = "ERROR" }',
      LogGroupName: { Ref: logGroup },
      MetricTransformations: [
        Match.objectLike({ MetricNamespace: 'PetStore', MetricName: 'PublishFailures' }),
      ],
    });
  });

  it('sends every one of its alarms, and its recovery, to the stage topic, on 2 of 3 breaching periods', () => {
    // 5xx rate, latency, 2 per operation function, the authorizer's failures and throttles, 1 per
    // table and index, and the events' 3: the stream's lag, the publisher's errors, the batches given up on.
    expect(alarms.length).toBe(2 + 2 * OPERATION_FUNCTIONS.length + 2 + TABLES.length + INDEXES.length + 3);
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
        TreatMissingData: DOCUMENTED_ALARM_EVALUATION.TreatMissingData,
        EvaluationPeriods: DOCUMENTED_ALARM_EVALUATION.EvaluationPeriods,
        DatapointsToAlarm: DOCUMENTED_ALARM_EVALUATION.DatapointsToAlarm,
        AlarmDescription: expect.stringMatching(new RegExp(`^\\[${stageName}\\] `)),
      });
    }
  });

  it("encrypts the alarm topic with a rotating key that CloudWatch may use, lets this account's alarms publish, and refuses publishing without TLS", () => {
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
    // A topic policy replaces SNS's default one: without the Allow, no alarm could notify anyone
    // (what AWS decides for each alarm is in iam-evaluation.test.ts).
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: { 'aws:SourceArn': Match.anyValue() },
            },
          }),
        ],
      },
    });
  });

  it('draws a dashboard of requests, errors, latency, pets created, errors by code, Lambda, the events and DynamoDB', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const widgets = dashboardWidgets(template);
    const graph = (title: string) => widgets.find((widget) => widget.title === title)?.metrics ?? [];
    const names = (title: string) => graph(title).map((metric) => `${metric.namespace}/${metric.name}`);
    const service = { service: 'pet-store', stage: stageName };

    expect(widgets.map((widget) => [widget.type, widget.title])).toEqual([
      ['alarm', 'Alarms'],
      ...[
        'Requests',
        '4xx / 5xx',
        'Latency (ms)',
        'Pets created',
        'Errors by code',
        'Authorizer failures',
        'Lambda duration p99 (ms)',
        'Lambda errors',
        'Lambda throttles',
        'Events: stream lag, max (ms)',
        'Events: publisher errors',
        'Events: batches given up, queued',
        'DynamoDB consumed read units',
        'DynamoDB consumed write units',
        'DynamoDB throttle events',
      ].map((title) => ['metric', title]),
    ]);
    expect(graph('Authorizer failures')).toEqual([
      expect.objectContaining({ namespace: 'PetStore', name: 'AuthorizerFailures' }),
    ]);
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
    // Each code, summed over the operation functions of the stage: an expression, and its three terms.
    const errorsByCode = graph('Errors by code');
    expect(
      errorsByCode.filter((metric) => 'expression' in metric.options).map((metric) => metric.options.label),
    ).toEqual(ERROR_CODES);
    const terms = errorsByCode.filter((metric) => !('expression' in metric.options));
    const ofFunctions = terms.filter((term) => term.name === 'Errors');
    expect(ofFunctions).toHaveLength(ERROR_CODES.length * OPERATION_FUNCTIONS.length);
    for (const term of ofFunctions) {
      expect(term).toMatchObject({ namespace: 'PetStore', name: 'Errors', options: { visible: false } });
      expect(Object.keys(term.dimensions).sort()).toEqual(['code', 'function_name']);
    }
    expect(new Set(ofFunctions.map((term) => term.dimensions.code))).toEqual(new Set(ERROR_CODES));
    // A method outside the key's scopes, which API Gateway refuses itself: counted under FORBIDDEN.
    expect(terms.filter((term) => term.name !== 'Errors')).toEqual([
      expect.objectContaining({
        namespace: 'PetStore',
        name: 'GatewayResponses',
        dimensions: { api_id: expect.anything(), response_type: 'ACCESS_DENIED' },
      }),
    ]);
    for (const title of ['Lambda duration p99 (ms)', 'Lambda errors', 'Lambda throttles']) {
      // The operation functions, the authorizer and the events publisher.
      expect(graph(title)).toHaveLength(STACK_FUNCTIONS.length);
    }
    expect(names('Events: stream lag, max (ms)')).toEqual(['AWS/Lambda/IteratorAge']);
    expect(names('Events: batches given up, queued')).toEqual(['AWS/SQS/ApproximateNumberOfMessagesVisible']);
    expect(
      graph('Events: publisher errors')
        .filter((metric) => !('expression' in metric.options))
        .map((metric) => `${metric.namespace}/${metric.name}`),
    ).toEqual(['AWS/Lambda/Errors', 'PetStore/PublishFailures']);
    expect(names('DynamoDB consumed read units')).toEqual(
      TABLES.map(() => 'AWS/DynamoDB/ConsumedReadCapacityUnits'),
    );
    expect(names('DynamoDB consumed write units')).toEqual(
      TABLES.map(() => 'AWS/DynamoDB/ConsumedWriteCapacityUnits'),
    );
    // Read plus write throttle events of each table and index: 3 entries each (the sum and its two terms).
    const throttles = graph('DynamoDB throttle events');
    expect(throttles).toHaveLength(3 * (TABLES.length + INDEXES.length));
    expect(names('DynamoDB throttle events')).toEqual(
      expect.arrayContaining(['AWS/DynamoDB/ReadThrottleEvents', 'AWS/DynamoDB/WriteThrottleEvents']),
    );
    for (const [table, indexName] of INDEXES) {
      const ofIndex = throttles.filter((metric) => metric.dimensions.GlobalSecondaryIndexName === indexName);
      expect(ofIndex.map((metric) => metric.name).sort(), indexName).toEqual([
        'ReadThrottleEvents',
        'WriteThrottleEvents',
      ]);
      expect(throttles.map((metric) => metric.options.label)).toContain(`${table} ${indexName}`);
    }
  });

  it('outputs the base URL ending in /v1/, the table names, the dashboard, the alarm topic, the deployments, the log groups and the events', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual(
      [
        'AlarmTopicArn',
        'ApiKeysTableName',
        'ApiUrl',
        'CountersTableName',
        'DashboardName',
        'DeploymentApplicationName',
        'AccessLogGroupName',
        'EventBusName',
        'EventFailuresQueueUrl',
        'EventSchemaRegistryName',
        ...STACK_FUNCTIONS.map(({ name }) => `${name}LogGroupName`),
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
    for (const table of TABLES) {
      const output = template.findOutputs(`${table}TableName`);
      expect([...referencedIds(output)][0]).toMatch(new RegExp(`^Tables${table}`));
    }
    template.hasOutput(OUTPUT.alarmTopic, { Value: { Ref: topicId } });
    template.hasOutput(OUTPUT.dashboard, {
      Value: { Ref: Object.keys(template.findResources('AWS::CloudWatch::Dashboard'))[0] },
    });
  });
});
