import type { TableDesign } from '#shared/adapters/dynamodb/table-design';

/**
 * Names of each stack's outputs (`aws cloudformation describe-stacks`), shared by the stack, the
 * keys command and the docs.
 */
export const OUTPUT = {
  apiUrl: 'ApiUrl',
  /** `PetsTableName`, `CountersTableName`, `ApiKeysTableName`. */
  tableName: (design: Pick<TableDesign, 'logicalName'>) => `${design.logicalName}TableName`,
  dashboard: 'DashboardName',
  alarmTopic: 'AlarmTopicArn',
  /** The CodeDeploy application whose deployment groups shift each function's traffic. */
  deployments: 'DeploymentApplicationName',
} as const;
