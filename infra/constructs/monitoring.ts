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
import { ValidationError } from '#infra/constructs/validation-error';
import type { StageConfig } from '#infra/stages';
import { ERROR_CODES, HTTP_LAYER_CODES } from '#shared/http/error-body';
import { ERROR_CODE_LOG_KEY } from '#shared/http/middleware/error-responses';
import { SERVICE_NAME } from '#shared/observability/logger';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from '#shared/observability/metrics';

export interface MonitoringProps {
  /** The stage: its alarm thresholds, evaluation periods, and what happens to the topic's key on deletion. */
  readonly stage: StageConfig;
  /** The stage's REST API: alarms and graphs on its requests, 5xx and latency. */
  readonly api: RestApi;
  /** The operations' functions, by the name their alarms and graph lines carry (e.g. `ListPets`). */
  readonly handlers: Readonly<Record<string, ApiFunction>>;
  /** The authorizer's function: alarms on the failures it logs and on its throttles. */
  readonly authorizer: ApiFunction;
  /** The tables, by logical name: alarms and graphs on their throttles and consumed units. */
  readonly tables: Readonly<Record<string, Table>>;
}

/** Metric (from a log filter) counting the failures the authorizer logs at ERROR level. */
export const AUTHORIZER_FAILURES_METRIC = 'AuthorizerFailures';

/**
 * Metric (from a log filter, per operation function) counting the lines it logs at ERROR level:
 * one for each 5xx it answers (shared/http/middleware/error-responses.ts), and any other failure.
 */
export const SERVER_ERRORS_METRIC = 'ServerErrors';

/**
 * Metric (from a log filter, per operation function) counting the errors it answers, by Error
 * code: the line each error answer logs with its code (shared/http/middleware/error-responses.ts),
 * at ERROR for a 5xx and at INFO for any other. The functions publish no metric for it.
 */
export const ERRORS_BY_CODE_METRIC = 'Errors';

/** A line a function logs at ERROR level (Powertools' JSON `level`). */
const ERROR_LINES = FilterPattern.stringValue('$.level', '=', 'ERROR');

/** A line a function logs for an error answer: it names the Error code. */
const ERROR_CODE_LINES = FilterPattern.exists(`$.${ERROR_CODE_LOG_KEY}`);

/** The dimension of ERRORS_BY_CODE_METRIC that names the code. */
const DIMENSION_CODE = 'code';

/** The codes a function can answer: the HTTP layer's never reach one. */
const FUNCTION_CODES = ERROR_CODES.filter((code) => !HTTP_LAYER_CODES.includes(code));

/** How long a canary sends a new version part of the traffic (LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES). */
const CANARY_MINUTES = 5;

interface AlarmOptions {
  readonly metric: IMetric;
  readonly threshold: number;
  readonly description: string;
  /** @default ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD */
  readonly comparison?: ComparisonOperator;
}

/**
 * Alarms and dashboard of one stage. Every alarm notifies one SNS topic (on alarm and on
 * recovery); subscribe to it to be told. Thresholds come from the stage configuration.
 */
export class Monitoring extends Construct {
  /** The topic every alarm of the stage notifies, encrypted with a key of its own. */
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  /** Every alarm of the stage, in the order the dashboard shows them. */
  readonly alarms: Alarm[] = [];
  /**
   * The alarms that roll back a deployment of each function (by the names of `handlers`, and
   * `Authorizer`): on its `live` alias, over short periods, so that they fire within a canary.
   */
  readonly deploymentAlarms: Readonly<Record<string, readonly Alarm[]>>;

  private readonly stage: StageConfig;
  private readonly period: Duration;
  private readonly deploymentPeriod: Duration;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.stage = props.stage;
    this.checkThresholds();
    this.period = Duration.minutes(this.stage.alarms.periodMinutes);
    this.deploymentPeriod = Duration.minutes(this.stage.alarms.deploymentPeriodMinutes);
    this.topic = this.alarmTopic();
    this.addApiAlarms(props.api);
    this.addErrorCodeFilters(props.handlers);
    this.addHandlerAlarms(props.handlers);
    this.addAuthorizerAlarms(props.authorizer);
    this.addTableAlarms(props.tables);
    this.deploymentAlarms = this.addDeploymentAlarms(props.handlers, props.authorizer);
    this.dashboard = this.createDashboard(props);
  }

  /** Thresholds CloudWatch could never evaluate fail the synth, naming this construct. */
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
    // CloudWatch periods above a minute are whole minutes.
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

  /**
   * The topic, encrypted. CloudWatch can publish to an encrypted topic only with a customer
   * managed key whose policy lets it use the key (the AWS managed aws/sns key does not).
   */
  private alarmTopic(): Topic {
    const key = new Key(this, 'AlarmTopicKey', {
      description: `Encrypts the pet store ${this.stage.name} alarm topic`,
      enableKeyRotation: true,
      removalPolicy: this.stage.dataProtection.removalPolicy,
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
    return new Topic(this, 'AlarmTopic', {
      displayName: `Pet store ${this.stage.name} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
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
   * Errors by code, from the lines each operation function logs (ERRORS_BY_CODE_METRIC), with
   * the function's name as a dimension too: it keeps the stages apart, as every line carries it.
   */
  private addErrorCodeFilters(handlers: MonitoringProps['handlers']): void {
    for (const [name, handler] of Object.entries(handlers)) {
      new MetricFilter(this, `${name}ErrorCodeFilter`, {
        logGroup: handler.logGroup,
        filterPattern: ERROR_CODE_LINES,
        metricNamespace: METRICS_NAMESPACE,
        metricName: ERRORS_BY_CODE_METRIC,
        metricValue: '1',
        dimensions: { function_name: '$.function_name', [DIMENSION_CODE]: `$.${ERROR_CODE_LOG_KEY}` },
      });
    }
  }

  /**
   * Errors reach Lambda's `Errors` only as crashes and timeouts (middy turns every other failure
   * into a response), so any is worth a look; and throttles.
   */
  private addHandlerAlarms(handlers: MonitoringProps['handlers']): void {
    const { functionErrors, functionThrottles } = this.stage.alarms;
    for (const [name, handler] of Object.entries(handlers)) {
      this.alarm(`${name}Errors`, {
        metric: handler.function.metricErrors({ statistic: 'Sum', period: this.period }),
        threshold: functionErrors,
        description: `${name}: ${functionErrors}+ failed invocations (crash or timeout)`,
      });
      this.alarm(`${name}Throttles`, {
        metric: handler.function.metricThrottles({ statistic: 'Sum', period: this.period }),
        threshold: functionThrottles,
        description: `${name}: ${functionThrottles}+ throttled invocations`,
      });
    }
  }

  /**
   * The authorizer throws "Unauthorized" for every refused key (that is how a TOKEN authorizer
   * answers 401), so its Lambda Errors count clients with bad keys. Its own failures are the
   * lines it logs at ERROR level (e.g. DynamoDB unavailable): those are counted and alarmed on.
   */
  private addAuthorizerAlarms(authorizer: ApiFunction): void {
    const { authorizerFailures, functionThrottles } = this.stage.alarms;
    new MetricFilter(this, 'AuthorizerFailureFilter', {
      logGroup: authorizer.logGroup,
      filterPattern: ERROR_LINES,
      metricNamespace: METRICS_NAMESPACE,
      metricName: AUTHORIZER_FAILURES_METRIC,
      metricValue: '1',
      // Powertools writes the function name on every line: it keeps the stages apart.
      dimensions: { function_name: '$.function_name' },
    });
    this.alarm('AuthorizerFailures', {
      metric: this.authorizerFailures(authorizer),
      threshold: authorizerFailures,
      description: `Authorizer: ${authorizerFailures}+ failures logged (not refused keys)`,
    });
    this.alarm('AuthorizerThrottles', {
      metric: authorizer.function.metricThrottles({ statistic: 'Sum', period: this.period }),
      threshold: functionThrottles,
      description: `Authorizer: ${functionThrottles}+ throttled invocations`,
    });
  }

  /** Read plus write throttle events of each table. */
  private addTableAlarms(tables: MonitoringProps['tables']): void {
    const { tableThrottles } = this.stage.alarms;
    for (const [name, table] of Object.entries(tables)) {
      this.alarm(`${name}TableThrottles`, {
        metric: this.tableThrottles(table, name),
        threshold: tableThrottles,
        description: `${name} table: ${tableThrottles}+ read or write throttle events`,
      });
    }
  }

  /** The deployment alarms of every function, by the names of `handlers`, and `Authorizer`. */
  private addDeploymentAlarms(
    handlers: MonitoringProps['handlers'],
    authorizer: ApiFunction,
  ): Record<string, readonly Alarm[]> {
    return {
      ...Object.fromEntries(
        Object.entries(handlers).map(([name, handler]) => [
          name,
          this.handlerDeploymentAlarms(name, handler),
        ]),
      ),
      Authorizer: this.authorizerDeploymentAlarms(authorizer),
    };
  }

  /**
   * What rolls back a deployment of an operation's function, each on its `live` alias: a crash or
   * timeout (Lambda `Errors`), a 5xx answer (the ERROR lines it logs, counted by a metric filter),
   * a slow p99. The alias sees every request of a canary, the new version's included.
   */
  private handlerDeploymentAlarms(name: string, handler: ApiFunction): Alarm[] {
    const { functionErrors, functionServerErrors, functionP99DurationMs } = this.stage.alarms;
    const period = this.deploymentPeriod;
    new MetricFilter(this, `${name}ServerErrorFilter`, {
      logGroup: handler.logGroup,
      filterPattern: ERROR_LINES,
      metricNamespace: METRICS_NAMESPACE,
      metricName: SERVER_ERRORS_METRIC,
      metricValue: '1',
      dimensions: { function_name: '$.function_name' },
    });
    return [
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
      this.alarm(`${name}LiveDurationP99`, {
        metric: handler.alias.metricDuration({ statistic: 'p99', period }),
        threshold: functionP99DurationMs,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `${name} (live): p99 duration above ${functionP99DurationMs} ms; rolls back a deployment`,
      }),
    ];
  }

  /**
   * What rolls back a deployment of the authorizer: failures it logs (its Lambda `Errors` count
   * refused keys, by design), a slow p99 on its `live` alias.
   */
  private authorizerDeploymentAlarms(authorizer: ApiFunction): Alarm[] {
    const { authorizerFailures, functionP99DurationMs } = this.stage.alarms;
    const period = this.deploymentPeriod;
    return [
      this.alarm('AuthorizerLiveFailures', {
        metric: this.loggedErrors(AUTHORIZER_FAILURES_METRIC, authorizer, period),
        threshold: authorizerFailures,
        description: `Authorizer: ${authorizerFailures}+ failures logged a minute; rolls back a deployment`,
      }),
      this.alarm('AuthorizerLiveDurationP99', {
        metric: authorizer.alias.metricDuration({ statistic: 'p99', period }),
        threshold: functionP99DurationMs,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `Authorizer (live): p99 duration above ${functionP99DurationMs} ms; rolls back a deployment`,
      }),
    ];
  }

  /**
   * One dashboard per stage and region, in rows: alarm states; the API; what the service reports;
   * the functions; the tables.
   */
  private createDashboard(props: MonitoringProps): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-${Aws.REGION}`,
      defaultInterval: Duration.hours(3),
    });
    dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 3 }),
    );
    dashboard.addWidgets(...this.apiGraphs(props.api));
    dashboard.addWidgets(...this.serviceGraphs(props.handlers, props.authorizer));
    dashboard.addWidgets(...this.functionGraphs({ ...props.handlers, Authorizer: props.authorizer }));
    dashboard.addWidgets(...this.tableGraphs(props.tables));
    return dashboard;
  }

  private apiGraphs(api: RestApi): GraphWidget[] {
    const period = this.period;
    return [
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
    ];
  }

  /** What the service reports: pets created (EMF), errors by code and the authorizer's failures (log filters). */
  private serviceGraphs(handlers: MonitoringProps['handlers'], authorizer: ApiFunction): GraphWidget[] {
    return [
      graph('Pets created', [this.serviceMetric(METRIC.petsCreated, 'PetsCreated')]),
      graph(
        'Errors by code',
        FUNCTION_CODES.map((code, index) => this.errorsOfCode(code, index, handlers)),
      ),
      graph('Authorizer failures', [this.authorizerFailures(authorizer, 'logged failures')]),
    ];
  }

  /** The errors of one code that the operation functions of this stage answered, summed. */
  private errorsOfCode(code: string, index: number, handlers: MonitoringProps['handlers']): MathExpression {
    // Ids unique per graph: one graph shows the expression of every code.
    const usingMetrics = Object.fromEntries(
      Object.values(handlers).map((handler, fn) => [
        `code${index}fn${fn}`,
        new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: ERRORS_BY_CODE_METRIC,
          dimensionsMap: { function_name: handler.function.functionName, [DIMENSION_CODE]: code },
          statistic: 'Sum',
          period: this.period,
        }),
      ]),
    );
    return new MathExpression({
      expression: `SUM([${Object.keys(usingMetrics).join(', ')}])`,
      usingMetrics,
      label: code,
      period: this.period,
    });
  }

  private functionGraphs(functions: Readonly<Record<string, ApiFunction>>): GraphWidget[] {
    const period = this.period;
    const each = (metric: (fn: ApiFunction, name: string) => IMetric) =>
      Object.entries(functions).map(([name, fn]) => metric(fn, name));
    return [
      graph(
        'Lambda duration p99 (ms)',
        each((fn, label) => fn.function.metricDuration({ statistic: 'p99', period, label })),
      ),
      graph(
        'Lambda errors',
        each((fn, label) => fn.function.metricErrors({ statistic: 'Sum', period, label })),
      ),
      graph(
        'Lambda throttles',
        each((fn, label) => fn.function.metricThrottles({ statistic: 'Sum', period, label })),
      ),
    ];
  }

  private tableGraphs(tables: MonitoringProps['tables']): GraphWidget[] {
    const period = this.period;
    const each = (metric: (table: Table, name: string) => IMetric) =>
      Object.entries(tables).map(([name, table]) => metric(table, name));
    return [
      graph(
        'DynamoDB consumed read units',
        each((table, label) => table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period, label })),
      ),
      graph(
        'DynamoDB consumed write units',
        each((table, label) => table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period, label })),
      ),
      graph(
        'DynamoDB throttle events',
        each((table, name) => this.tableThrottles(table, name)),
      ),
    ];
  }

  /** The authorizer's logged failures (AUTHORIZER_FAILURES_METRIC), for this stage's function. */
  private authorizerFailures(authorizer: ApiFunction, label?: string): Metric {
    return this.loggedErrors(AUTHORIZER_FAILURES_METRIC, authorizer, this.period, label);
  }

  /** A metric of the ERROR lines a metric filter counts, for one function of this stage. */
  private loggedErrors(metricName: string, fn: ApiFunction, period: Duration, label?: string): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { function_name: fn.function.functionName },
      statistic: 'Sum',
      period,
      ...(label ? { label } : {}),
    });
  }

  /** A metric a function publishes with Powertools (EMF), for this stage. */
  private serviceMetric(metricName: string, label: string): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { [DIMENSION.service]: SERVICE_NAME, [DIMENSION.stage]: this.stage.name },
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

  /** An alarm of the stage: evaluated as the stage says, no data counted as fine, notifying the topic. */
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

/** A graph of the dashboard, a third of its width. */
const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
  new GraphWidget({ title, left, right, width: 8, height: 6 });
