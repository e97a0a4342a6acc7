import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { authorizer as authorizerContract, authorizerFunction } from '#functions/authorizer';
import { CONTRACTS, OPERATIONS, SCOPE_RESOURCES } from '#functions/operations';
import { petEventsPublisher, publishPetEventsFunction } from '#functions/publish-pet-events';
import { ApiFunction, type ApiFunctionProps, AUTHORIZER_TIMEOUT } from '#infra/constructs/api-function';
import { GradualDeployments } from '#infra/constructs/gradual-deployments';
import { LogQueries } from '#infra/constructs/log-queries';
import { Monitoring } from '#infra/constructs/monitoring';
import { PetEvents } from '#infra/constructs/pet-events';
import { PetStoreApi } from '#infra/constructs/pet-store-api';
import { Tables } from '#infra/constructs/tables';
import { acknowledgeLogGroupRules } from '#infra/control-tower';
import { lambdaEntry } from '#infra/lambda-entries';
import { OUTPUT } from '#infra/outputs';
import type { StageConfig } from '#infra/stages';
import { type TableAccess, tablesOf } from '#shared/adapters/dynamodb/access';
import type { LambdaFunction } from '#shared/composition/function';
import { ENV } from '#shared/config';
import type { Operation } from '#shared/operations/operation';

export interface PetStoreStackProps extends Omit<StackProps, 'env'> {
  readonly stage: StageConfig;
}

/** What a `full` stack adds to the service: alarms, their topic, the dashboard, gradual deployments. */
export interface StackOperations {
  readonly monitoring: Monitoring;
  readonly deployments: GradualDeployments;
}

/** As its construct, alarms, deployment group and outputs carry it (`ListPets`). */
export const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The events publisher, as its alarms, deployment group and log output name it. */
const PUBLISHER_NAME = pascal(publishPetEventsFunction.name);

export const describeOperation = ({ method, path, operationId }: Operation): string =>
  `${method} ${path} (${operationId})`;

export class PetStoreStack extends Stack {
  readonly tables: Tables;
  readonly handlers: Readonly<Record<string, ApiFunction>>;
  readonly authorizer: ApiFunction;
  /** Publishes the pets' events from the pets table's stream. */
  readonly publisher: ApiFunction;
  readonly events: PetEvents;
  readonly api: PetStoreApi;
  /** What operating it needs, in a `full` stack only (StackShape); a `lean` one is the service alone. */
  readonly operations: StackOperations | undefined;

  private readonly stage: StageConfig;
  /** A lean stack's functions log to one group; a full stack's each to its own, which its alarms and queries read. */
  private readonly sharedFunctionLogs: LogGroup | undefined;

  constructor(scope: Construct, id: string, props: PetStoreStackProps) {
    const { stage } = props;
    super(scope, id, {
      ...props,
      env: stage.env,
      description: `Serverless pet store (${stage.name})`,
      terminationProtection: stage.dataProtection.terminationProtection,
    });
    this.stage = stage;
    this.sharedFunctionLogs = stage.shape === 'full' ? undefined : this.functionLogGroup();
    // The service: in every shape.
    this.tables = new Tables(this, 'Tables', { dataProtection: stage.dataProtection });
    this.handlers = this.operationFunctions();
    this.authorizer = this.authorizerFunction();
    this.publisher = this.apiFunction(publishPetEventsFunction, {
      description: petEventsPublisher.description,
    });
    this.events = new PetEvents(this, 'Events', {
      stage,
      table: this.tables.byKey('pets'),
      publisher: this.publisher,
    });
    const named = Object.fromEntries(Object.entries(this.handlers).map(([id, fn]) => [pascal(id), fn]));
    const functions = { ...named, Authorizer: this.authorizer, [PUBLISHER_NAME]: this.publisher };
    this.api = new PetStoreApi(this, 'Api', {
      stage,
      restApiName: this.stackName,
      operations: CONTRACTS,
      // In a full stack, the `live` aliases: the versions CodeDeploy has let in.
      handlers: Object.fromEntries(
        Object.entries(this.handlers).map(([operationId, fn]) => [operationId, fn.invoked]),
      ),
      authorizer: this.authorizer.invoked,
    });
    // What operating it needs: every alarm, widget and deployment group, in a full stack only.
    this.operations = stage.shape === 'full' ? this.addOperations(named, functions) : undefined;
    this.addOutputs(functions);
  }

  private addOperations(
    named: Record<string, ApiFunction>,
    functions: Record<string, ApiFunction>,
  ): StackOperations {
    const monitoring = new Monitoring(this, 'Monitoring', {
      stage: this.stage,
      api: this.api.api,
      accessLogs: this.api.accessLogs,
      handlers: named,
      authorizer: this.authorizer,
      tables: this.tables.all,
      events: { name: PUBLISHER_NAME, publisher: this.publisher, failures: this.events.failures },
    });
    // The authorizer's too: a bad version of it would fail every request at once.
    const deployments = new GradualDeployments(this, 'Deployments', {
      config: this.stage.deployment,
      functions: Object.fromEntries(
        Object.entries(functions).map(([name, fn]) => [
          name,
          { alias: fn.alias, alarms: monitoring.deploymentAlarms[name] ?? [] },
        ]),
      ),
    });
    new LogQueries(this, 'LogQueries', {
      prefix: this.stackName,
      accessLogs: this.api.accessLogs,
      handlerLogs: Object.fromEntries(Object.entries(named).map(([name, fn]) => [name, fn.logGroup])),
      authorizerLogs: this.authorizer.logGroup,
    });
    return { monitoring, deployments };
  }

  private functionLogGroup(): LogGroup {
    const logGroup = new LogGroup(this, 'FunctionLogs', {
      retention: this.stage.logRetention,
      removalPolicy: this.stage.dataProtection.removalPolicy,
    });
    acknowledgeLogGroupRules(logGroup);
    return logGroup;
  }

  private apiFunction(
    fn: Pick<LambdaFunction, 'name' | 'data'>,
    props: Pick<ApiFunctionProps, 'description' | 'timeout'>,
  ): ApiFunction {
    const apiFunction = new ApiFunction(this, pascal(fn.name), {
      logRetention: this.stage.logRetention,
      logRemovalPolicy: this.stage.dataProtection.removalPolicy,
      logLevel: this.stage.logLevel,
      stage: this.stage.name,
      // Behind `live` only where CodeDeploy shifts it.
      live: this.stage.shape === 'full',
      entry: lambdaEntry(fn),
      ...(this.sharedFunctionLogs ? { logGroup: this.sharedFunctionLogs } : {}),
      ...props,
    });
    this.grantData(apiFunction, fn.data);
    return apiFunction;
  }

  private operationFunctions(): Record<string, ApiFunction> {
    return Object.fromEntries(
      OPERATIONS.map((operationFunction) => {
        const fn = this.apiFunction(operationFunction, {
          description: describeOperation(operationFunction.operation),
        });
        if (this.stage.allowedOrigins.length > 0) {
          fn.function.addEnvironment(ENV.corsOrigins, this.stage.allowedOrigins.join(','));
        }
        return [operationFunction.operation.operationId, fn];
      }),
    );
  }

  /** It names each caller's plan and allows the methods of its scopes: it gets the plans and the scopes' methods. */
  private authorizerFunction(): ApiFunction {
    const fn = this.apiFunction(authorizerFunction, {
      description: authorizerContract.description,
      timeout: AUTHORIZER_TIMEOUT,
    });
    fn.function.addEnvironment(ENV.plans, JSON.stringify(this.stage.plans));
    fn.function.addEnvironment(ENV.scopes, JSON.stringify(SCOPE_RESOURCES));
    return fn;
  }

  /** What operators read with `aws cloudformation describe-stacks` (docs/deploy.md). */
  private addOutputs(functions: Record<string, ApiFunction>): void {
    new CfnOutput(this, OUTPUT.apiUrl, {
      value: this.api.api.url,
      description: 'Base URL of the API: the stage URL, ending in /v1/',
    });
    for (const { design, table } of this.tables.all) {
      new CfnOutput(this, OUTPUT.tableName(design), {
        value: table.tableName,
        ...(design.key === 'apiKeys'
          ? { description: 'Table of API keys: npm run keys -- <command> --table <this>' }
          : {}),
      });
    }
    if (this.operations) {
      new CfnOutput(this, OUTPUT.dashboard, { value: this.operations.monitoring.dashboard.dashboardName });
      new CfnOutput(this, OUTPUT.alarmTopic, {
        value: this.operations.monitoring.topic.topicArn,
        description: 'Every alarm of the stage notifies this topic: subscribe to it',
      });
    }
    new CfnOutput(this, OUTPUT.accessLogs, {
      value: this.api.accessLogs.logGroupName,
      description: 'API access log: one JSON line per request, with its requestId',
    });
    for (const [name, fn] of Object.entries(functions)) {
      new CfnOutput(this, OUTPUT.functionLogs(name), { value: fn.logGroup.logGroupName });
    }
    new CfnOutput(this, OUTPUT.eventBus, {
      value: this.events.bus.eventBusName,
      description: "The pets' events (docs/asyncapi.yaml): make your rules on this bus",
    });
    if (this.events.registry)
      new CfnOutput(this, OUTPUT.eventSchemas, {
        value: this.events.registry.attrRegistryName,
        description: "The events' schemas, with code bindings in the EventBridge console",
      });
    new CfnOutput(this, OUTPUT.eventFailures, {
      value: this.events.failures.queueUrl,
      description: "Batches of the pets table's stream the publisher gave up on (docs/operate.md)",
    });
    if (this.operations) {
      new CfnOutput(this, OUTPUT.deployments, {
        value: this.operations.deployments.application.applicationName,
        description:
          'CodeDeploy application of the gradual deployments: aws deploy list-deployments --application-name <this>',
      });
    }
  }

  /** Exactly the declared actions on the table or index named (no `grantReadData`, no `index/*`). */
  private grantData(fn: ApiFunction, accesses: readonly TableAccess[]): void {
    for (const access of accesses) {
      const table: Table = this.tables.byKey(access.table);
      fn.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: [...access.actions],
          resources: [access.index ? `${table.tableArn}/index/${access.index}` : table.tableArn],
        }),
      );
    }
    for (const key of tablesOf(accesses)) {
      fn.function.addEnvironment(ENV.tables[key], this.tables.byKey(key).tableName);
    }
  }
}
