import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ApiFunction, AUTHORIZER_TIMEOUT } from '#infra/constructs/api-function';
import { Monitoring } from '#infra/constructs/monitoring';
import { PetStoreApi } from '#infra/constructs/pet-store-api';
import { Tables } from '#infra/constructs/tables';
import { OUTPUT } from '#infra/outputs';
import type { StageConfig } from '#infra/stages';
import { type TableAccess, tablesOf } from '#shared/adapters/dynamodb/access';
import { LEGACY_STATUS_INDEX } from '#shared/adapters/dynamodb/table-design';
import { ENV } from '#shared/config';
import { authorizerFunction } from '#shared/operations/authorizer';
import { entryFile } from '#shared/operations/operation';
import { OPERATIONS, type OperationId } from '#shared/operations/routes';

export interface PetStoreStackProps extends Omit<StackProps, 'env'> {
  readonly stage: StageConfig;
}

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The whole service for one stage: tables, functions, API, alarms and dashboard. */
export class PetStoreStack extends Stack {
  readonly tables: Tables;
  readonly handlers: Readonly<Record<OperationId, ApiFunction>>;
  readonly authorizer: ApiFunction;
  readonly api: PetStoreApi;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: PetStoreStackProps) {
    const { stage } = props;
    super(scope, id, {
      ...props,
      env: stage.env,
      description: `Serverless pet store (${stage.name})`,
      terminationProtection: stage.dataProtection.terminationProtection,
    });

    this.tables = new Tables(this, 'Tables', {
      dataProtection: stage.dataProtection,
      legacyStatusIndex: stage.legacyStatusIndex,
    });

    const functionProps = {
      logRetention: stage.logRetention,
      logRemovalPolicy: stage.dataProtection.removalPolicy,
      logLevel: stage.logLevel,
      stage: stage.name,
    };

    this.handlers = Object.fromEntries(
      OPERATIONS.map((operation) => {
        const fn = new ApiFunction(this, pascal(operation.operationId), {
          ...functionProps,
          entry: entryFile(operation.operationId),
          description: `${operation.method} ${operation.path} (${operation.operationId})`,
        });
        this.grantData(fn, operation.data);
        // The functions answer with the CORS headers of the stage's origins (none: no variable).
        if (stage.allowedOrigins.length > 0) {
          fn.function.addEnvironment(ENV.corsOrigins, stage.allowedOrigins.join(','));
        }
        return [operation.operationId, fn];
      }),
    ) as Record<OperationId, ApiFunction>;

    this.authorizer = new ApiFunction(this, pascal(authorizerFunction.name), {
      ...functionProps,
      entry: entryFile(authorizerFunction.name),
      description: authorizerFunction.description,
      timeout: AUTHORIZER_TIMEOUT,
    });
    this.grantData(this.authorizer, authorizerFunction.data);

    this.api = new PetStoreApi(this, 'Api', {
      stage,
      restApiName: this.stackName,
      handlers: Object.fromEntries(
        Object.entries(this.handlers).map(([operationId, fn]) => [operationId, fn.function]),
      ) as Record<OperationId, ApiFunction['function']>,
      authorizer: this.authorizer.function,
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      api: this.api.api,
      handlers: Object.fromEntries(
        Object.entries(this.handlers).map(([operationId, fn]) => [pascal(operationId), fn]),
      ),
      authorizer: this.authorizer,
      tables: Object.fromEntries(this.tables.all.map(({ design, table }) => [design.logicalName, table])),
    });

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
  }

  /**
   * Exactly the DynamoDB actions the function's descriptor lists, each on the table or index it
   * names (no `grantReadData`, no `index/*`), and the variable of each table it touches. An index
   * the table does not have is granted nothing; a function granted the legacy status index reads
   * it (PETS_LEGACY_STATUS_INDEX).
   */
  private grantData(fn: ApiFunction, accesses: readonly TableAccess[]): void {
    for (const access of accesses) {
      if (access.index && !this.tables.hasIndex(access.table, access.index)) continue;
      if (access.index === LEGACY_STATUS_INDEX.indexName)
        fn.function.addEnvironment(ENV.legacyStatusIndex, 'true');
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
