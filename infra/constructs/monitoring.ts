import { Aws, Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
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
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { ApiFunction } from '#infra/constructs/api-function';
import type { StageConfig } from '#infra/stages';
import { ERROR_CODES, HTTP_LAYER_CODES } from '#shared/http/error-body';
import { SERVICE_NAME } from '#shared/observability/logger';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from '#shared/observability/metrics';

export interface MonitoringProps {
  readonly stage: StageConfig;
  readonly api: RestApi;
  /** The route handlers, by operation id. */
  readonly handlers: Readonly<Record<string, ApiFunction>>;
  readonly authorizer: ApiFunction;
  /** The tables, by logical name. */
  readonly tables: Readonly<Record<string, Table>>;
}

/** Metric (from a log filter) counting the failures the authorizer logs at ERROR level. */
export const AUTHORIZER_FAILURES_METRIC = 'AuthorizerFailures';

/**
 * Alarms and dashboard of one stage. Every alarm notifies one SNS topic (on alarm and on
 * recovery); subscribe to it to be told. Thresholds come from the stage configuration.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];

  private readonly stage: StageConfig;
  private readonly period: Duration;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { stage, api, handlers, authorizer, tables } = props;
    const thresholds = stage.alarms;
    this.stage = stage;
    this.period = Duration.minutes(thresholds.periodMinutes);
    const period = this.period;

    // CloudWatch can publish to an encrypted topic only with a customer managed key whose
    // policy lets it use the key (the AWS managed aws/sns key does not).
    const key = new Key(this, 'AlarmTopicKey', {
      description: `Encrypts the pet store ${stage.name} alarm topic`,
      enableKeyRotation: true,
      removalPolicy: stage.dataProtection.removalPolicy,
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    // Grants on the key only for AWS services acting on resources (Control Tower CT.KMS.PR.3):
    // nobody can hand a principal lasting use of it through a grant.
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
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `Pet store ${stage.name} alarms`,
      masterKey: key,
      enforceSSL: true,
    });

    // API: the client's view, authorizer and gateway responses included.
    this.alarm('ApiServerErrorRate', {
      metric: api.metricServerError({ statistic: 'Average', period }),
      threshold: thresholds.serverErrorRate,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `More than ${thresholds.serverErrorRate * 100}% of requests answered 5xx`,
    });
    this.alarm('ApiLatencyP99', {
      metric: api.metricLatency({ statistic: 'p99', period }),
      threshold: thresholds.p99LatencyMs,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `p99 latency above ${thresholds.p99LatencyMs} ms`,
    });

    // Handlers: errors reach Lambda's Errors only as crashes and timeouts (middy turns every
    // other failure into a response), so any is worth a look.
    for (const [name, handler] of Object.entries(handlers)) {
      this.alarm(`${name}Errors`, {
        metric: handler.function.metricErrors({ statistic: 'Sum', period }),
        threshold: thresholds.functionErrors,
        description: `${name}: ${thresholds.functionErrors}+ failed invocations (crash or timeout)`,
      });
      this.alarm(`${name}Throttles`, {
        metric: handler.function.metricThrottles({ statistic: 'Sum', period }),
        threshold: thresholds.functionThrottles,
        description: `${name}: ${thresholds.functionThrottles}+ throttled invocations`,
      });
    }

    // The authorizer throws "Unauthorized" for every refused key (that is how a TOKEN authorizer
    // answers 401), so its Lambda Errors count clients with bad keys. Its own failures are the
    // lines it logs at ERROR level (e.g. DynamoDB unavailable): those are counted and alarmed on.
    new MetricFilter(this, 'AuthorizerFailureFilter', {
      logGroup: authorizer.logGroup,
      filterPattern: FilterPattern.stringValue('$.level', '=', 'ERROR'),
      metricNamespace: METRICS_NAMESPACE,
      metricName: AUTHORIZER_FAILURES_METRIC,
      metricValue: '1',
      // Powertools writes the function name on every line: it keeps the stages apart.
      dimensions: { function_name: '$.function_name' },
    });
    this.alarm('AuthorizerFailures', {
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: AUTHORIZER_FAILURES_METRIC,
        dimensionsMap: { function_name: authorizer.function.functionName },
        statistic: 'Sum',
        period,
      }),
      threshold: thresholds.authorizerFailures,
      description: `Authorizer: ${thresholds.authorizerFailures}+ failures logged (not refused keys)`,
    });
    this.alarm('AuthorizerThrottles', {
      metric: authorizer.function.metricThrottles({ statistic: 'Sum', period }),
      threshold: thresholds.functionThrottles,
      description: `Authorizer: ${thresholds.functionThrottles}+ throttled invocations`,
    });

    for (const [name, table] of Object.entries(tables)) {
      this.alarm(`${name}TableThrottles`, {
        metric: this.tableThrottles(table, name),
        threshold: thresholds.tableThrottles,
        description: `${name} table: ${thresholds.tableThrottles}+ read or write throttle events`,
      });
    }

    const functions = { ...handlers, Authorizer: authorizer };
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-${Aws.REGION}`,
      defaultInterval: Duration.hours(3),
    });
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 8, height: 6 });
    this.dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 3 }),
    );
    this.dashboard.addWidgets(
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
    this.dashboard.addWidgets(
      graph('Pets created', [this.serviceMetric(METRIC.petsCreated, {}, 'PetsCreated')]),
      graph(
        'Errors by code',
        // The codes a function can count (the HTTP layer's never reach one).
        ERROR_CODES.filter((code) => !HTTP_LAYER_CODES.includes(code)).map((code) =>
          this.serviceMetric(METRIC.errors, { [DIMENSION.code]: code }, code),
        ),
      ),
      graph('Authorizer failures', [
        new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: AUTHORIZER_FAILURES_METRIC,
          dimensionsMap: { function_name: authorizer.function.functionName },
          statistic: 'Sum',
          period,
          label: 'logged failures',
        }),
      ]),
    );
    this.dashboard.addWidgets(
      graph(
        'Lambda duration p99 (ms)',
        Object.entries(functions).map(([name, fn]) =>
          fn.function.metricDuration({ statistic: 'p99', period, label: name }),
        ),
      ),
      graph(
        'Lambda errors',
        Object.entries(functions).map(([name, fn]) =>
          fn.function.metricErrors({ statistic: 'Sum', period, label: name }),
        ),
      ),
      graph(
        'Lambda throttles',
        Object.entries(functions).map(([name, fn]) =>
          fn.function.metricThrottles({ statistic: 'Sum', period, label: name }),
        ),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'DynamoDB consumed read units',
        Object.entries(tables).map(([name, table]) =>
          table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period, label: name }),
        ),
      ),
      graph(
        'DynamoDB consumed write units',
        Object.entries(tables).map(([name, table]) =>
          table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period, label: name }),
        ),
      ),
      graph(
        'DynamoDB throttle events',
        Object.entries(tables).map(([name, table]) => this.tableThrottles(table, name)),
      ),
    );
  }

  /** A metric the functions publish with Powertools (EMF), for this stage. */
  private serviceMetric(metricName: string, dimensions: Record<string, string>, label: string): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: {
        [DIMENSION.service]: SERVICE_NAME,
        [DIMENSION.stage]: this.stage.name,
        ...dimensions,
      },
      statistic: 'Sum',
      period: this.period,
      label,
    });
  }

  /** Read plus write throttle events of a table (on-demand tables throttle too, at their limits). */
  private tableThrottles(table: Table, name: string): MathExpression {
    const options = { statistic: 'Sum', period: this.period };
    // Ids unique per table: one graph shows the expressions of every table.
    const [reads, writes] = [`reads${name}`, `writes${name}`];
    return new MathExpression({
      expression: `${reads} + ${writes}`,
      usingMetrics: {
        [reads]: table.metric('ReadThrottleEvents', options),
        [writes]: table.metric('WriteThrottleEvents', options),
      },
      label: name,
      period: this.period,
    });
  }

  private alarm(
    id: string,
    options: {
      metric: IMetric;
      threshold: number;
      description: string;
      comparison?: ComparisonOperator;
    },
  ): Alarm {
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
