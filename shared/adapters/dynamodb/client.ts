import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbConfig } from '#shared/config';

/**
 * Time budget of one DynamoDB call. The ladder is: attempts × request timeout (3 × 1.5 s, plus
 * back-off) stays under the Lambda timeout (infra), which stays under API Gateway's 29 s.
 */
export const DYNAMODB_MAX_ATTEMPTS = 3;
export const DYNAMODB_REQUEST_TIMEOUT_MS = 1_500;
export const DYNAMODB_CONNECTION_TIMEOUT_MS = 500;

/** Region and credentials for DynamoDB Local, which accepts any; never used against AWS. */
const LOCAL_CLIENT = {
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/**
 * The functions' DynamoDB client: the time budget above, and DynamoDB Local when an endpoint is
 * configured. For code that needs the plain client (Powertools' idempotency persistence) as well
 * as for the document client below, so every call of a function keeps the same budget.
 */
export const createDynamoDbClient = (config: DynamoDbConfig): DynamoDBClient =>
  new DynamoDBClient({
    maxAttempts: DYNAMODB_MAX_ATTEMPTS,
    requestHandler: {
      requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS,
      connectionTimeout: DYNAMODB_CONNECTION_TIMEOUT_MS,
    },
    ...(config.endpoint ? { endpoint: config.endpoint, ...LOCAL_CLIENT } : {}),
  });

/** A document client over a plain client (one per process, created at cold start). */
export const documentClientOf = (client: DynamoDBClient): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

/** One document client per process, created at cold start and reused by every invocation. */
export const createDocumentClient = (config: DynamoDbConfig): DynamoDBDocumentClient =>
  documentClientOf(createDynamoDbClient(config));

/**
 * A plain client for DynamoDB Local (table creation, readiness checks, tests, the benchmark):
 * the local region and dummy credentials, so no credential lookup ever reaches for AWS.
 */
export const createLocalClient = (endpoint: string, config: DynamoDBClientConfig = {}): DynamoDBClient =>
  new DynamoDBClient({ ...LOCAL_CLIENT, ...config, endpoint });
