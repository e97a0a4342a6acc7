import { API_KEYS_TABLE, COUNTERS_TABLE, PETS_TABLE } from '#shared/adapters/dynamodb/table-design';

/**
 * Names of each stack's outputs (`aws cloudformation describe-stacks`), shared by the stack, the
 * keys command and docs/deploy.md.
 */
export const OUTPUT = {
  apiUrl: 'ApiUrl',
  petsTable: `${PETS_TABLE.logicalName}TableName`,
  countersTable: `${COUNTERS_TABLE.logicalName}TableName`,
  apiKeysTable: `${API_KEYS_TABLE.logicalName}TableName`,
  dashboard: 'DashboardName',
  alarmTopic: 'AlarmTopicArn',
} as const;
