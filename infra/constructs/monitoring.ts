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
import { FilterPattern, type IFilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
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
  readonly stage: StageConfig;
  readonly api: RestApi;
  /** By the name their alarms and graph lines carry (e.g. `ListPets`). */
  readonly handlers: Readonly<Record<string, ApiFunction>>;
  readonly authorizer: ApiFunction;
  /** By logical name. */
  readonly tables: Readonly<Record<string, Table>>;
}

/** Metric (from a log filter) counting the failures the authorizer logs at ERROR level. */
export const AUTHORIZER_FAILURES_METRIC = 'AuthorizerFailures';

/** Metric (from a log filter) counting the lines a function logs at ERROR level: one per 5xx, and any other failure. */
export const SERVER_ERRORS_METRIC = 'ServerErrors';

/** Metric (from a log filter) counting the errors a function answers, by the code each error answer logs. */
export const ERRORS_BY_CODE_METRIC = 'Errors';

const ERROR_LINES = FilterPattern.stringValue('$.level', '=', 'ERROR');

const ERROR_CODE_LINES = FilterPattern.exists(`$.${ERROR_CODE_LOG_KEY}`);

const DIMENSION_CODE = 'code';

/** The HTTP layer's codes never reach a function. */
const FUNCTION_CODES = ERROR_CODES.filter((code) => !HTTP_LAYER_CODES.includes(code));

/** LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES */
const CANARY_MINUTES = 5;

interface AlarmOptions {
  readonly metric: IMetric;
  readonly threshold: number;
  readonly description: string;
  /** @default ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD */
  readonly comparison?: ComparisonOperator;
}

/** Alarms and dashboard of one stage; every alarm notifies one SNS topic, on alarm and on recovery. */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  /** Every alarm of the stage, in the order the dashboard shows them. */
  readonly alarms: Alarm[] = [];
  /** By function (the names of `handlers`, and `Authorizer`): on its `live` alias, short enough to fire within a canary. */
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

  /** Errors by code, with the function's name as a dimension too: it keeps the stages apart. */
  private addErrorCodeFilters(handlers: MonitoringProps['handlers']): void {
    for (const [name, handler] of Object.entries(handlers)) {
      this.countLines(`${name}ErrorCodeFilter`, handler, ERRORS_BY_CODE_METRIC, ERROR_CODE_LINES, {
        [DIMENSION_CODE]: `$.${ERROR_CODE_LOG_KEY}`,
      });
    }
  }

  /** Lambda's `Errors` are only crashes and timeouts (middy turns every other failure into a response). */
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
   * The authorizer throws "Unauthorized" for every refused key, so its Lambda Errors count clients
   * with bad keys: its own failures are the lines it logs at ERROR level.
   */
  private addAuthorizerAlarms(authorizer: ApiFunction): void {
    const { authorizerFailures, functionThrottles } = this.stage.alarms;
    this.countLines('AuthorizerFailureFilter', authorizer, AUTHORIZER_FAILURES_METRIC, ERROR_LINES);
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

  /** What rolls back a deployment: a crash or timeout, a 5xx answer, a slow p99 (the alias sees the whole canary). */
  private handlerDeploymentAlarms(name: string, handler: ApiFunction): Alarm[] {
    const { functionErrors, functionServerErrors, functionP99DurationMs } = this.stage.alarms;
    const period = this.deploymentPeriod;
    this.countLines(`${name}ServerErrorFilter`, handler, SERVER_ERRORS_METRIC, ERROR_LINES);
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

  /** What rolls back the authorizer's: failures it logs (its Lambda `Errors` count refused keys), a slow p99. */
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

  /** One dashboard per stage and region, in rows: alarms, the API, the service, the functions, the tables. */
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

  private authorizerFailures(authorizer: ApiFunction, label?: string): Metric {
    return this.loggedErrors(AUTHORIZER_FAILURES_METRIC, authorizer, this.period, label);
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
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { function_name: fn.function.functionName },
      statistic: 'Sum',
      period,
      ...(label ? { label } : {}),
    });
  }

  /** A metric a function publishes with Powertools (EMF). */
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

const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
  new GraphWidget({ title, left, right, width: 8, height: 6 });
