import { CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { CfnTable, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { ApiFunction, AUTHORIZER_TIMEOUT } from '#infra/constructs/api-function';
import { Monitoring } from '#infra/constructs/monitoring';
import { PetStoreApi } from '#infra/constructs/pet-store-api';
import { Tables } from '#infra/constructs/tables';
import { OUTPUT } from '#infra/outputs';
import { AUTHORIZER_ENTRY, ROUTES, type Route } from '#infra/routes';
import type { StageConfig } from '#infra/stages';
import {
  API_KEYS_TABLE,
  COUNTERS_TABLE,
  PETS_TABLE,
  STATUS_INDEX,
} from '#shared/adapters/dynamodb/table-design';
import { ENV } from '#shared/config';

export interface PetStoreStackProps extends Omit<StackProps, 'env'> {
  readonly stage: StageConfig;
}

type TableKey = 'pets' | 'counters' | 'apiKeys';

/**
 * What a function does with a table: `read` (the CDK's read grant, indexes included) or exactly
 * the write actions it calls, and the variable that names the table.
 */
interface TableUse {
  readonly table: TableKey;
  readonly grant: 'read' | readonly `dynamodb:${string}`[];
}

/**
 * The tables each kind of function touches, as shared/composition/ builds them: readers only
 * read pets (GetItem, Query, Scan); createPet puts a pet (PutItem) and bumps the id counter
 * (UpdateItem), and can neither delete nor read; the authorizer reads API keys and nothing else.
 */
export const TABLE_USE: Readonly<Record<Route['access'] | 'authorizer', readonly TableUse[]>> = {
  read: [{ table: 'pets', grant: 'read' }],
  write: [
    { table: 'pets', grant: ['dynamodb:PutItem'] },
    { table: 'counters', grant: ['dynamodb:UpdateItem'] },
  ],
  authorizer: [{ table: 'apiKeys', grant: 'read' }],
};

const TABLE_ENV: Readonly<Record<TableKey, string>> = {
  pets: ENV.petsTable,
  counters: ENV.countersTable,
  apiKeys: ENV.apiKeysTable,
};

/**
 * Table grants cover the table's indexes as `<table ARN>/index/*`; on the pets table that is the
 * status-index the listing queries, the only index there is.
 */
const acknowledgeIndexGrant = (fn: ApiFunction, table: Table): void => {
  const stack = Stack.of(table);
  const logicalId = stack.getLogicalId(table.node.defaultChild as CfnTable);
  Validations.of(fn.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/index/*]`,
    reason: `Grants on the pets table include its indexes: ${STATUS_INDEX.indexName}, queried by listPets.`,
  });
};

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The whole service for one stage: tables, functions, API, alarms and dashboard. */
export class PetStoreStack extends Stack {
  readonly tables: Tables;
  readonly handlers: Readonly<Record<Route['operationId'], ApiFunction>>;
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

    this.tables = new Tables(this, 'Tables', { dataProtection: stage.dataProtection });
    const tableOf: Readonly<Record<TableKey, Table>> = {
      pets: this.tables.pets,
      counters: this.tables.counters,
      apiKeys: this.tables.apiKeys,
    };

    const functionProps = {
      logRetention: stage.logRetention,
      logRemovalPolicy: stage.dataProtection.removalPolicy,
      logLevel: stage.logLevel,
      stage: stage.name,
    };
    const withTables = (fn: ApiFunction, uses: readonly TableUse[]): ApiFunction => {
      for (const use of uses) {
        const table = tableOf[use.table];
        if (use.grant === 'read') table.grantReadData(fn.function);
        else table.grant(fn.function, ...use.grant);
        fn.function.addEnvironment(TABLE_ENV[use.table], table.tableName);
        if (use.table === 'pets') acknowledgeIndexGrant(fn, table);
      }
      return fn;
    };

    this.handlers = Object.fromEntries(
      ROUTES.map((route) => {
        const fn = new ApiFunction(this, pascal(route.operationId), {
          ...functionProps,
          entry: route.entry,
          description: `${route.method} ${route.path} (${route.operationId})`,
        });
        return [route.operationId, withTables(fn, TABLE_USE[route.access])];
      }),
    ) as Record<Route['operationId'], ApiFunction>;

    this.authorizer = withTables(
      new ApiFunction(this, 'Authorizer', {
        ...functionProps,
        entry: AUTHORIZER_ENTRY,
        description: 'TOKEN authorizer: Authorization: Bearer <API key>',
        timeout: AUTHORIZER_TIMEOUT,
      }),
      TABLE_USE.authorizer,
    );

    this.api = new PetStoreApi(this, 'Api', {
      stage,
      restApiName: this.stackName,
      handlers: Object.fromEntries(
        Object.entries(this.handlers).map(([operationId, fn]) => [operationId, fn.function]),
      ) as Record<Route['operationId'], ApiFunction['function']>,
      authorizer: this.authorizer.function,
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      api: this.api.api,
      handlers: Object.fromEntries(
        Object.entries(this.handlers).map(([operationId, fn]) => [pascal(operationId), fn]),
      ),
      authorizer: this.authorizer,
      tables: {
        [PETS_TABLE.logicalName]: this.tables.pets,
        [COUNTERS_TABLE.logicalName]: this.tables.counters,
        [API_KEYS_TABLE.logicalName]: this.tables.apiKeys,
      },
    });

    new CfnOutput(this, OUTPUT.apiUrl, {
      value: this.api.api.url,
      description: 'Base URL of the API: the stage URL, ending in /v1/',
    });
    new CfnOutput(this, OUTPUT.petsTable, { value: this.tables.pets.tableName });
    new CfnOutput(this, OUTPUT.countersTable, { value: this.tables.counters.tableName });
    new CfnOutput(this, OUTPUT.apiKeysTable, {
      value: this.tables.apiKeys.tableName,
      description: 'Table of API keys: npm run keys -- <command> --table <this>',
    });
    new CfnOutput(this, OUTPUT.dashboard, { value: this.monitoring.dashboard.dashboardName });
    new CfnOutput(this, OUTPUT.alarmTopic, {
      value: this.monitoring.topic.topicArn,
      description: 'Every alarm of the stage notifies this topic: subscribe to it',
    });
  }
}
