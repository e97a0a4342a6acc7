import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
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

/** As its construct, alarms, deployment group and outputs carry it (`ListPets`). */
export const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

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
  readonly monitoring: Monitoring;
  readonly deployments: GradualDeployments;

  private readonly stage: StageConfig;

  constructor(scope: Construct, id: string, props: PetStoreStackProps) {
    const { stage } = props;
    super(scope, id, {
      ...props,
      env: stage.env,
      description: `Serverless pet store (${stage.name})`,
      terminationProtection: stage.dataProtection.terminationProtection,
    });
    this.stage = stage;
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
    const publisherName = pascal(publishPetEventsFunction.name);
    const functions = { ...named, Authorizer: this.authorizer, [publisherName]: this.publisher };
    this.api = new PetStoreApi(this, 'Api', {
      stage,
      restApiName: this.stackName,
      operations: CONTRACTS,
      // API Gateway invokes the `live` aliases: the versions CodeDeploy has let in.
      handlers: Object.fromEntries(
        Object.entries(this.handlers).map(([operationId, fn]) => [operationId, fn.alias]),
      ),
      authorizer: this.authorizer.alias,
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      api: this.api.api,
      accessLogs: this.api.accessLogs,
      handlers: named,
      authorizer: this.authorizer,
      tables: this.tables.all,
      events: { name: publisherName, publisher: this.publisher, failures: this.events.failures },
    });
    // The authorizer's too: a bad version of it would fail every request at once.
    this.deployments = new GradualDeployments(this, 'Deployments', {
      config: stage.deployment,
      functions: Object.fromEntries(
        Object.entries(functions).map(([name, fn]) => [
          name,
          { alias: fn.alias, alarms: this.monitoring.deploymentAlarms[name] ?? [] },
        ]),
      ),
    });
    new LogQueries(this, 'LogQueries', {
      prefix: this.stackName,
      accessLogs: this.api.accessLogs,
      handlerLogs: Object.fromEntries(Object.entries(named).map(([name, fn]) => [name, fn.logGroup])),
      authorizerLogs: this.authorizer.logGroup,
    });
    this.addOutputs(functions);
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
      entry: lambdaEntry(fn),
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
    new CfnOutput(this, OUTPUT.dashboard, { value: this.monitoring.dashboard.dashboardName });
    new CfnOutput(this, OUTPUT.alarmTopic, {
      value: this.monitoring.topic.topicArn,
      description: 'Every alarm of the stage notifies this topic: subscribe to it',
    });
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
    new CfnOutput(this, OUTPUT.eventSchemas, {
      value: this.events.registry.attrRegistryName,
      description: "The events' schemas, with code bindings in the EventBridge console",
    });
    new CfnOutput(this, OUTPUT.eventFailures, {
      value: this.events.failures.queueUrl,
      description: "Batches of the pets table's stream the publisher gave up on (docs/operate.md)",
    });
    new CfnOutput(this, OUTPUT.deployments, {
      value: this.deployments.application.applicationName,
      description:
        'CodeDeploy application of the gradual deployments: aws deploy list-deployments --application-name <this>',
    });
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
