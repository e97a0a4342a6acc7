import { Aws, Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  type AlarmProps,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, type IFilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ACCESS_LOG_FIELDS } from '#infra/access-log';
import type { ApiFunction } from '#infra/constructs/api-function';
import type { Tables } from '#infra/constructs/tables';
import { ValidationError } from '#infra/constructs/validation-error';
import type { StageConfig } from '#infra/stages';
import { ERROR_CODES, type ErrorCode, HTTP_LAYER_CODES } from '#shared/http/error-body';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '#shared/http/gateway-behaviour';
import { ERROR_CODE_LOG_KEY } from '#shared/http/middleware/error-responses';
import { SERVICE_NAME } from '#shared/observability/logger';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from '#shared/observability/metrics';

export interface MonitoringProps {
  readonly stage: StageConfig;
  readonly api: RestApi;
  /** The stage's access log: API Gateway's own refusals are counted from it (no function sees them). */
  readonly accessLogs: ILogGroup;
  /** By the name their alarms and graph lines carry (e.g. `ListPets`). */
  readonly handlers: Readonly<Record<string, ApiFunction>>;
  readonly authorizer: ApiFunction;
  /** Each with its design: its alarms and graph lines carry its logical name (e.g. `Pets`), its indexes are watched too. */
  readonly tables: Tables['all'];
  /** The pets' events: their publisher (by the name its alarms carry) and the queue of batches it gave up on. */
  readonly events: {
    readonly name: string;
    readonly publisher: ApiFunction;
    readonly failures: IQueue;
  };
}

/**
 * What one throttle alarm and graph line watch: a table, or one of its global secondary indexes,
 * whose throttles the table's own metrics leave out ("The TableName dimension returns the
 * WriteThrottleEvents for the table, but not for any global secondary indexes", DynamoDB's
 * metrics and dimensions).
 */
interface ThrottleWatch {
  /** The alarm's id without `Throttles`, and the graph's metric ids: `PetsTable`, `PetsStatusShardIndex`. */
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly dimensions: Readonly<Record<string, string>>;
}

/** `status-shard-index` as `StatusShardIndex`. */
const pascalWords = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** Every table of the stack, then each of its indexes, from the table design: a new index is watched from the start. */
const throttleWatches = (tables: MonitoringProps['tables']): ThrottleWatch[] =>
  tables.flatMap(({ design, table }) => [
    {
      id: `${design.logicalName}Table`,
      label: design.logicalName,
      description: `${design.logicalName} table`,
      dimensions: { TableName: table.tableName },
    },
    ...design.indexes.map(({ indexName }) => ({
      id: `${design.logicalName}${pascalWords(indexName)}`,
      label: `${design.logicalName} ${indexName}`,
      description: `${design.logicalName} table's index ${indexName}`,
      dimensions: { TableName: table.tableName, GlobalSecondaryIndexName: indexName },
    })),
  ]);

/** Counted by log filters: ERROR lines of the authorizer and of a function (one per 5xx), answered codes. */
const AUTHORIZER_FAILURES_METRIC = 'AuthorizerFailures';
/** The publisher's ERROR lines: each a record it could not publish (or read). */
const PUBLISH_FAILURES_METRIC = 'PublishFailures';
const SERVER_ERRORS_METRIC = 'ServerErrors';
const ERRORS_BY_CODE_METRIC = 'Errors';

const ERROR_LINES = FilterPattern.stringValue('$.level', '=', 'ERROR');

const ERROR_CODE_LINES = FilterPattern.exists(`$.${ERROR_CODE_LOG_KEY}`);

const DIMENSION_CODE = 'code';

/** Counted from the access log: API Gateway's answers no function sees, by the API (stage) and type. */
const GATEWAY_RESPONSES_METRIC = 'GatewayResponses';
const DIMENSION_API = 'api_id';
const DIMENSION_RESPONSE_TYPE = 'response_type';

/** The access log's fields the count reads (infra/access-log.ts). */
const accessField = (name: keyof typeof ACCESS_LOG_FIELDS): string => `$.${name}`;

/**
 * API Gateway's own answers counted under their Error code on the dashboard: a method outside the key's
 * scopes (ACCESS_DENIED, FORBIDDEN). One filter each; a custom metric only once it counts one.
 */
const COUNTED_GATEWAY_RESPONSES: readonly GatewayResponseType[] = ['ACCESS_DENIED'];

/** The codes drawn: a function's and API Gateway's own; the local HTTP layer's never reach AWS. */
const FUNCTION_CODES = ERROR_CODES.filter((code) => !HTTP_LAYER_CODES.includes(code));

/** LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES */
const CANARY_MINUTES = 5;

interface AlarmOptions extends Pick<AlarmProps, 'metric' | 'threshold'> {
  readonly description: string;
  readonly comparison?: ComparisonOperator;
}

/** Alarms and dashboard of one stage; every alarm notifies one SNS topic, on alarm and on recovery. */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];
  /** By function (the names of `handlers`, and `Authorizer`): on its `live` alias, short enough to fire within a canary. */
  readonly deploymentAlarms: Readonly<Record<string, readonly Alarm[]>>;

  private readonly stage: StageConfig;
  private readonly period: Duration;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.stage = props.stage;
    this.checkThresholds();
    this.period = Duration.minutes(this.stage.alarms.periodMinutes);
    this.topic = this.alarmTopic();
    this.addApiAlarms(props.api);
    this.addFunctionAlarms(props.handlers, props.authorizer);
    this.countGatewayResponses(props.accessLogs);
    this.addTableAlarms(props.tables);
    this.addEventAlarms(props.events);
    this.deploymentAlarms = {
      ...this.addDeploymentAlarms(props.handlers, props.authorizer),
      [props.events.name]: this.addPublisherDeploymentAlarms(props.events),
    };
    this.dashboard = this.createDashboard(props);
  }

  private checkThresholds(): void {
    const { serverErrorRate, evaluationPeriods, datapointsToAlarm, periodMinutes, deploymentPeriodMinutes } =
      this.stage.alarms;
    if (!(serverErrorRate > 0 && serverErrorRate < 1)) {
      throw new ValidationError(
        `alarms.serverErrorRate is a share, between 0 and 1: got ${serverErrorRate}`,
        this,
      );
    }
    if (datapointsToAlarm > evaluationPeriods) {
      throw new ValidationError(
        `alarms.datapointsToAlarm (${datapointsToAlarm}) exceeds alarms.evaluationPeriods (${evaluationPeriods}): the alarm could never fire`,
        this,
      );
    }
    for (const [name, minutes] of Object.entries({ periodMinutes, deploymentPeriodMinutes })) {
      if (!Number.isInteger(minutes) || minutes < 1) {
        throw new ValidationError(`alarms.${name} must be a whole number of minutes: got ${minutes}`, this);
      }
    }
    // A canary lasts 5 minutes: the deployment alarms must be able to fire inside it.
    if (deploymentPeriodMinutes * datapointsToAlarm >= CANARY_MINUTES) {
      throw new ValidationError(
        `alarms.deploymentPeriodMinutes (${deploymentPeriodMinutes}) × datapointsToAlarm (${datapointsToAlarm}) is ${CANARY_MINUTES} minutes or more: a deployment alarm could not fire within a canary`,
        this,
      );
    }
  }

  /** CloudWatch publishes to an encrypted topic only with a customer managed key (not aws/sns) it may use. */
  private alarmTopic(): Topic {
    const { keyPendingWindowDays } = this.stage.dataProtection;
    const key = new Key(this, 'AlarmTopicKey', {
      description: `Encrypts the pet store ${this.stage.name} alarm topic`,
      enableKeyRotation: true,
      removalPolicy: this.stage.dataProtection.removalPolicy,
      ...(keyPendingWindowDays ? { pendingWindow: Duration.days(keyPendingWindowDays) } : {}),
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    // Grants only for AWS services on resources (Control Tower CT.KMS.PR.3): no lasting use by grant.
    key.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: {
          BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' },
        },
      }),
    );
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: `Pet store ${this.stage.name} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // It replaces SNS's default policy, so the TLS-only Deny alone would allow nobody (docs/design.md,
    // "What AWS allows at run time, evaluated").
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisAccountsAlarmsToPublish',
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
          },
        },
      }),
    );
    return topic;
  }

  /** The client's view, authorizer and gateway responses included: share of 5xx, p99 latency. */
  private addApiAlarms(api: RestApi): void {
    const { serverErrorRate, p99LatencyMs } = this.stage.alarms;
    this.alarm('ApiServerErrorRate', {
      metric: api.metricServerError({ statistic: 'Average', period: this.period }),
      threshold: serverErrorRate,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `More than ${serverErrorRate * 100}% of requests answered 5xx`,
    });
    this.alarm('ApiLatencyP99', {
      metric: api.metricLatency({ statistic: 'p99', period: this.period }),
      threshold: p99LatencyMs,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `p99 latency above ${p99LatencyMs} ms`,
    });
  }

  /**
   * A handler's `Errors` are only crashes and timeouts (middy answers the rest). The authorizer throws
   * "Unauthorized" per refused key, so its own failures are its ERROR lines, not its `Errors`.
   */
  private addFunctionAlarms(handlers: MonitoringProps['handlers'], authorizer: ApiFunction): void {
    const { functionErrors, functionThrottles, authorizerFailures } = this.stage.alarms;
    const sum = { statistic: 'Sum', period: this.period };
    const throttles = (name: string, fn: ApiFunction) =>
      this.alarm(`${name}Throttles`, {
        metric: fn.function.metricThrottles(sum),
        threshold: functionThrottles,
        description: `${name}: ${functionThrottles}+ throttled invocations`,
      });
    for (const [name, handler] of Object.entries(handlers)) {
      this.countLines(`${name}ErrorCodeFilter`, handler, ERRORS_BY_CODE_METRIC, ERROR_CODE_LINES, {
        [DIMENSION_CODE]: `$.${ERROR_CODE_LOG_KEY}`,
      });
      this.alarm(`${name}Errors`, {
        metric: handler.function.metricErrors(sum),
        threshold: functionErrors,
        description: `${name}: ${functionErrors}+ failed invocations (crash or timeout)`,
      });
      throttles(name, handler);
    }
    this.countLines('AuthorizerFailureFilter', authorizer, AUTHORIZER_FAILURES_METRIC, ERROR_LINES);
    this.alarm('AuthorizerFailures', {
      metric: this.loggedErrors(AUTHORIZER_FAILURES_METRIC, authorizer, this.period),
      threshold: authorizerFailures,
      description: `Authorizer: ${authorizerFailures}+ failures logged (not refused keys)`,
    });
    throttles('Authorizer', authorizer);
  }

  /** Each counted type of API Gateway's own answers, from the access log's `errorType`, per API. */
  private countGatewayResponses(accessLogs: ILogGroup): void {
    for (const type of COUNTED_GATEWAY_RESPONSES) {
      new MetricFilter(this, `GatewayResponse${type}Filter`, {
        logGroup: accessLogs,
        filterPattern: FilterPattern.stringValue(accessField('errorType'), '=', type),
        metricNamespace: METRICS_NAMESPACE,
        metricName: GATEWAY_RESPONSES_METRIC,
        metricValue: '1',
        dimensions: {
          [DIMENSION_API]: accessField('apiId'),
          [DIMENSION_RESPONSE_TYPE]: accessField('errorType'),
        },
      });
    }
  }

  /** One alarm per table and per index: a table with many indexes stays under an alarm's 10 metrics. */
  private addTableAlarms(tables: MonitoringProps['tables']): void {
    const { tableThrottles } = this.stage.alarms;
    for (const watch of throttleWatches(tables)) {
      this.alarm(`${watch.id}Throttles`, {
        metric: this.throttles(watch),
        threshold: tableThrottles,
        description: `${watch.description}: ${tableThrottles}+ read or write throttle events`,
      });
    }
  }

  /**
   * The events: how far behind the writes the publisher reads the stream, its failures, and the
   * batches given up on (any is events not published: docs/operate.md, "Events not published").
   */
  private addEventAlarms({ name, publisher, failures }: MonitoringProps['events']): void {
    const { eventsIteratorAgeMs, publisherErrors, eventFailuresQueued } = this.stage.alarms;
    this.countLines(`${name}FailureFilter`, publisher, PUBLISH_FAILURES_METRIC, ERROR_LINES);
    this.alarm(`${name}IteratorAge`, {
      metric: this.iteratorAge(publisher),
      threshold: eventsIteratorAgeMs,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `Events: the publisher reads the pets table's stream more than ${eventsIteratorAgeMs / 1_000} s after the writes`,
    });
    this.alarm(`${name}Errors`, {
      metric: this.publisherErrors(publisher, this.period),
      threshold: publisherErrors,
      description: `Events: ${publisherErrors}+ publisher crashes, timeouts or records it could not publish`,
    });
    this.alarm('EventFailuresQueued', {
      metric: this.queuedFailures(failures),
      threshold: eventFailuresQueued,
      description: `Events: ${eventFailuresQueued}+ batches of the pets table's stream given up on, in the failures queue: replay them within 24 hours (docs/operate.md)`,
    });
  }

  private iteratorAge(publisher: ApiFunction, label?: string): Metric {
    return publisher.function.metric('IteratorAge', {
      statistic: 'Maximum',
      period: this.period,
      ...(label ? { label } : {}),
    });
  }

  private queuedFailures(failures: IQueue, label?: string): Metric {
    return failures.metricApproximateNumberOfMessagesVisible({
      statistic: 'Maximum',
      period: this.period,
      ...(label ? { label } : {}),
    });
  }

  /** Its Lambda `Errors` (crashes, timeouts) and its logged failures, which are answers, not errors. */
  private publisherErrors(publisher: ApiFunction, period: Duration): MathExpression {
    return new MathExpression({
      expression: 'FILL(errors, 0) + FILL(failures, 0)',
      usingMetrics: {
        errors: publisher.function.metricErrors({ statistic: 'Sum', period }),
        failures: this.loggedErrors(PUBLISH_FAILURES_METRIC, publisher, period),
      },
      label: 'errors and records not published',
      period,
    });
  }

  /** A bad version of the publisher crashes, or refuses what it publishes: either rolls it back. */
  private addPublisherDeploymentAlarms({ name, publisher }: MonitoringProps['events']): Alarm[] {
    const { functionErrors, publisherErrors } = this.stage.alarms;
    const period = Duration.minutes(this.stage.alarms.deploymentPeriodMinutes);
    return [
      this.alarm(`${name}LiveErrors`, {
        metric: publisher.alias.metricErrors({ statistic: 'Sum', period }),
        threshold: functionErrors,
        description: `${name} (live): ${functionErrors}+ failed invocations a minute; rolls back a deployment`,
      }),
      this.alarm(`${name}LiveFailures`, {
        metric: this.loggedErrors(PUBLISH_FAILURES_METRIC, publisher, period),
        threshold: publisherErrors,
        description: `${name}: ${publisherErrors}+ records not published a minute; rolls back a deployment`,
      }),
    ];
  }

  /** What rolls back a deployment, on the alias (it sees the whole canary). */
  private addDeploymentAlarms(
    handlers: MonitoringProps['handlers'],
    authorizer: ApiFunction,
  ): Record<string, readonly Alarm[]> {
    const { functionErrors, functionServerErrors, authorizerFailures, functionP99DurationMs } =
      this.stage.alarms;
    const period = Duration.minutes(this.stage.alarms.deploymentPeriodMinutes);
    const slow = (name: string, fn: ApiFunction) =>
      this.alarm(`${name}LiveDurationP99`, {
        metric: fn.alias.metricDuration({ statistic: 'p99', period }),
        threshold: functionP99DurationMs,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `${name} (live): p99 duration above ${functionP99DurationMs} ms; rolls back a deployment`,
      });
    const alarms: Record<string, readonly Alarm[]> = {};
    for (const [name, handler] of Object.entries(handlers)) {
      this.countLines(`${name}ServerErrorFilter`, handler, SERVER_ERRORS_METRIC, ERROR_LINES);
      alarms[name] = [
        this.alarm(`${name}LiveErrors`, {
          metric: handler.alias.metricErrors({ statistic: 'Sum', period }),
          threshold: functionErrors,
          description: `${name} (live): ${functionErrors}+ failed invocations a minute; rolls back a deployment`,
        }),
        this.alarm(`${name}LiveServerErrors`, {
          metric: this.loggedErrors(SERVER_ERRORS_METRIC, handler, period),
          threshold: functionServerErrors,
          description: `${name}: ${functionServerErrors}+ 5xx answers a minute; rolls back a deployment`,
        }),
        slow(name, handler),
      ];
    }
    alarms.Authorizer = [
      this.alarm('AuthorizerLiveFailures', {
        metric: this.loggedErrors(AUTHORIZER_FAILURES_METRIC, authorizer, period),
        threshold: authorizerFailures,
        description: `Authorizer: ${authorizerFailures}+ failures logged a minute; rolls back a deployment`,
      }),
      slow('Authorizer', authorizer),
    ];
    return alarms;
  }

  /** One per stage and region. */
  private createDashboard({ api, handlers, authorizer, tables, events }: MonitoringProps): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-${Aws.REGION}`,
      defaultInterval: Duration.hours(3),
    });
    const period = this.period;
    const functions = { ...handlers, Authorizer: authorizer, [events.name]: events.publisher };
    dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 3 }),
    );
    dashboard.addWidgets(
      graph('Requests', [api.metricCount({ statistic: 'Sum', period, label: 'Requests' })]),
      graph('4xx / 5xx', [
        api.metricClientError({ statistic: 'Sum', period, label: '4xx' }),
        api.metricServerError({ statistic: 'Sum', period, label: '5xx' }),
      ]),
      graph('Latency (ms)', [
        api.metricLatency({ statistic: 'p50', period, label: 'p50' }),
        api.metricLatency({ statistic: 'p99', period, label: 'p99' }),
        api.metricIntegrationLatency({ statistic: 'p99', period, label: 'integration p99' }),
      ]),
    );
    // What the service reports: pets created (EMF), errors by code and the authorizer's failures (log filters).
    dashboard.addWidgets(
      graph('Pets created', [
        this.serviceMetric(
          METRIC.petsCreated,
          { [DIMENSION.service]: SERVICE_NAME, [DIMENSION.stage]: this.stage.name },
          'PetsCreated',
        ),
      ]),
      graph(
        'Errors by code',
        FUNCTION_CODES.map((code, index) => this.errorsOfCode(code, index, handlers, api)),
      ),
      graph('Authorizer failures', [
        this.loggedErrors(AUTHORIZER_FAILURES_METRIC, authorizer, period, 'logged failures'),
      ]),
    );
    const ofFunctions = (title: string, metricName: string, statistic: string) =>
      graph(
        title,
        lines(functions, (fn, label) => fn.function.metric(metricName, { statistic, period, label })),
      );
    dashboard.addWidgets(
      ofFunctions('Lambda duration p99 (ms)', 'Duration', 'p99'),
      ofFunctions('Lambda errors', 'Errors', 'Sum'),
      ofFunctions('Lambda throttles', 'Throttles', 'Sum'),
    );
    dashboard.addWidgets(
      graph('Events: stream lag, max (ms)', [this.iteratorAge(events.publisher, 'iterator age')]),
      graph('Events: publisher errors', [this.publisherErrors(events.publisher, period)]),
      graph('Events: batches given up, queued', [this.queuedFailures(events.failures, 'batches')]),
    );
    const consumed = (title: string, metricName: string) =>
      graph(
        title,
        tables.map(({ design, table }) =>
          table.metric(metricName, { statistic: 'Sum', period, label: design.logicalName }),
        ),
      );
    dashboard.addWidgets(
      consumed('DynamoDB consumed read units', 'ConsumedReadCapacityUnits'),
      consumed('DynamoDB consumed write units', 'ConsumedWriteCapacityUnits'),
      graph(
        'DynamoDB throttle events',
        throttleWatches(tables).map((watch) => this.throttles(watch)),
      ),
    );
    return dashboard;
  }

  /** A code's answers: the functions' (their log lines) and API Gateway's own of that code (the access log). */
  private errorsOfCode(
    code: ErrorCode,
    index: number,
    handlers: MonitoringProps['handlers'],
    api: RestApi,
  ): MathExpression {
    // Ids unique per graph: one graph shows the expression of every code.
    const usingMetrics = Object.fromEntries([
      ...Object.values(handlers).map((handler, fn) => [
        `code${index}fn${fn}`,
        this.serviceMetric(ERRORS_BY_CODE_METRIC, {
          function_name: handler.function.functionName,
          [DIMENSION_CODE]: code,
        }),
      ]),
      ...COUNTED_GATEWAY_RESPONSES.filter((type) => GATEWAY_RESPONSES[type].code === code).map((type, gw) => [
        `code${index}gw${gw}`,
        this.serviceMetric(GATEWAY_RESPONSES_METRIC, {
          [DIMENSION_API]: api.restApiId,
          [DIMENSION_RESPONSE_TYPE]: type,
        }),
      ]),
    ]);
    return new MathExpression({
      expression: `SUM([${Object.keys(usingMetrics).join(', ')}])`,
      usingMetrics,
      label: code,
      period: this.period,
    });
  }

  /** Counts `fn`'s log lines that match; `function_name`, on every line, keeps the stages apart. */
  private countLines(
    id: string,
    fn: ApiFunction,
    metricName: string,
    filterPattern: IFilterPattern,
    dimensions: Record<string, string> = {},
  ): void {
    new MetricFilter(this, id, {
      logGroup: fn.logGroup,
      filterPattern,
      metricNamespace: METRICS_NAMESPACE,
      metricName,
      metricValue: '1',
      dimensions: { function_name: '$.function_name', ...dimensions },
    });
  }

  private loggedErrors(metricName: string, fn: ApiFunction, period: Duration, label?: string): Metric {
    return this.serviceMetric(metricName, { function_name: fn.function.functionName }, label, period);
  }

  private serviceMetric(
    metricName: string,
    dimensionsMap: Record<string, string>,
    label?: string,
    period = this.period,
  ): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap,
      statistic: 'Sum',
      period,
      ...(label ? { label } : {}),
    });
  }

  /** On-demand tables throttle too, at their limits. */
  private throttles({ id, label, dimensions }: ThrottleWatch): MathExpression {
    const metric = (metricName: string) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { ...dimensions },
        statistic: 'Sum',
        period: this.period,
      });
    // Ids unique per table and index: one graph shows the expressions of all.
    const [reads, writes] = [`reads${id}`, `writes${id}`];
    return new MathExpression({
      expression: `${reads} + ${writes}`,
      usingMetrics: { [reads]: metric('ReadThrottleEvents'), [writes]: metric('WriteThrottleEvents') },
      label,
      period: this.period,
    });
  }

  private alarm(id: string, options: AlarmOptions): Alarm {
    const { evaluationPeriods, datapointsToAlarm } = this.stage.alarms;
    const alarm = new Alarm(this, id, {
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods,
      datapointsToAlarm,
      // No traffic is not a failure.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `[${this.stage.name}] ${options.description}`,
    });
    const action = new SnsAction(this.topic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.alarms.push(alarm);
    return alarm;
  }
}

const lines = <T>(record: Readonly<Record<string, T>>, metric: (item: T, name: string) => IMetric) =>
  Object.entries(record).map(([name, item]) => metric(item, name));

const graph = (title: string, left: IMetric[]) => new GraphWidget({ title, left, width: 8, height: 6 });
