import type { TableDesign } from '#shared/adapters/dynamodb/table-design';

/** Names of each stack's outputs, shared by the stack, the keys command and the docs. */
export const OUTPUT = {
  apiUrl: 'ApiUrl',
  /** `PetsTableName`, `CountersTableName`, `ApiKeysTableName`. */
  tableName: (design: Pick<TableDesign, 'logicalName'>) => `${design.logicalName}TableName`,
  dashboard: 'DashboardName',
  alarmTopic: 'AlarmTopicArn',
  /** The API's access log group: one JSON line per request. */
  accessLogs: 'AccessLogGroupName',
  /** A function's log group: `ListPetsLogGroupName`, …, `AuthorizerLogGroupName`. */
  functionLogs: (name: string) => `${name}LogGroupName`,
  /** The CodeDeploy application whose deployment groups shift each function's traffic. */
  deployments: 'DeploymentApplicationName',
  /** The bus the pets' events are published on: consumers' rules go there. */
  eventBus: 'EventBusName',
  /** The schema registry holding the events' schemas. */
  eventSchemas: 'EventSchemaRegistryName',
  /** Where the stream's batches the publisher gave up on are sent (their place in the stream). */
  eventFailures: 'EventFailuresQueueUrl',
} as const;
