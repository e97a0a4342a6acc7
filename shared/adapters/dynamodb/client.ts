import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbConfig } from '#shared/config';

/**
 * The time budget of one DynamoDB call (the first rung of the timeout ladder, docs/deploy.md):
 * at most 3 attempts, each abandoned after 1 s, with the SDK's jittered back-off between them
 * (at most 50 ms, then 100 ms, for a timeout or a network error). A stalled DynamoDB therefore
 * ends a call within DYNAMODB_CALL_BUDGET_MS (3.15 s), well inside the authorizer's 6 s and a handler's 15 s Lambda
 * timeouts, which stay inside API Gateway's 29 s.
 *
 * DynamoDB answers in milliseconds; a second is a stalled connection, not a slow answer.
 */
export const DYNAMODB_MAX_ATTEMPTS = 3;
export const DYNAMODB_REQUEST_TIMEOUT_MS = 1_000;
/** The SDK's back-off before attempt 2 and 3 after a timeout: at most 50 ms, then 100 ms. */
export const DYNAMODB_MAX_BACKOFF_MS = 50 + 100;
/** The longest one call can take when every attempt times out: 3 × 1 s + 150 ms. */
export const DYNAMODB_CALL_BUDGET_MS =
  DYNAMODB_MAX_ATTEMPTS * DYNAMODB_REQUEST_TIMEOUT_MS + DYNAMODB_MAX_BACKOFF_MS;
/**
 * Time to open a TCP connection. The SDK starts this clock when the request is made, so it also
 * counts a wait for a free socket of the client's pool: see DYNAMODB_MAX_SOCKETS.
 */
export const DYNAMODB_CONNECTION_TIMEOUT_MS = 1_000;
/**
 * Sockets per client (the SDK's default, said out loud). A Lambda function serves one request at
 * a time (createPet's calls go one after the other), so it never waits for one. The local
 * server shares each function's client between concurrent requests: it runs at most
 * LOCAL_CONCURRENCY (8, tools/local/gateway.ts) at once, so a request never waits for a socket
 * there either, and DynamoDB Local never sees more connections at once than it accepts.
 */
export const DYNAMODB_MAX_SOCKETS = 50;

/** Region and credentials for DynamoDB Local, which accepts any; never used against AWS. */
const LOCAL_CLIENT = {
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/**
 * How every DynamoDB client of the service sends requests: timeouts that end the call (without
 * `throwOnRequestTimeout` the SDK only logs a warning when `requestTimeout` passes and waits on),
 * and a keep-alive pool sized for the local server's bursts.
 */
export const timeBudget = (): Pick<DynamoDBClientConfig, 'maxAttempts' | 'requestHandler'> => ({
  maxAttempts: DYNAMODB_MAX_ATTEMPTS,
  requestHandler: {
    requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS,
    connectionTimeout: DYNAMODB_CONNECTION_TIMEOUT_MS,
    throwOnRequestTimeout: true,
    httpAgent: { keepAlive: true, maxSockets: DYNAMODB_MAX_SOCKETS },
    httpsAgent: { keepAlive: true, maxSockets: DYNAMODB_MAX_SOCKETS },
  },
});

/**
 * The functions' DynamoDB client: the time budget above, and DynamoDB Local when an endpoint is
 * configured. For code that needs the plain client (Powertools' idempotency persistence) as well
 * as for the document client below, so every call of a function keeps the same budget.
 */
export const createDynamoDbClient = (config: DynamoDbConfig): DynamoDBClient =>
  new DynamoDBClient({
    ...timeBudget(),
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
