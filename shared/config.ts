/**
 * Configuration from the environment, read once at cold start. A missing required variable is an
 * error at init time, never a silent default deep inside an adapter.
 */

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Readonly<Record<string, string | undefined>>;

export const requireEnv = (name: string, env: Env = process.env): string => {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`Environment variable ${name} must be set`);
  return value;
};

const optionalEnv = (name: string, env: Env): string | undefined => env[name]?.trim() || undefined;

/** Environment variable names, shared by the stack (which sets them) and the code (which reads them). */
export const ENV = {
  petsTable: 'PETS_TABLE_NAME',
  countersTable: 'COUNTERS_TABLE_NAME',
  apiKeysTable: 'API_KEYS_TABLE_NAME',
  dynamoDbEndpoint: 'DYNAMODB_ENDPOINT',
  /** `staging` or `production`, set by the stack; unset locally. */
  stage: 'PETSTORE_STAGE',
} as const;

export interface DynamoDbConfig {
  /** Set only outside AWS (DynamoDB Local); in Lambda the SDK finds the regional endpoint. */
  readonly endpoint?: string;
}

export const dynamoDbConfig = (env: Env = process.env): DynamoDbConfig => {
  const endpoint = optionalEnv(ENV.dynamoDbEndpoint, env);
  return endpoint ? { endpoint } : {};
};
