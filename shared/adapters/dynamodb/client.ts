import {
  DynamoDBClient,
  type DynamoDBClientConfig,
  DynamoDBServiceException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import { type DataGrants, refusalOf } from '#shared/adapters/dynamodb/access';
import type { DynamoDbConfig } from '#shared/config';
import { currentDeadline } from '#shared/deadline';

/** 3 attempts of 1 s, within the deadline (docs/design.md, "One deadline per request"). */
export const DYNAMODB_MAX_ATTEMPTS = 3;
export const DYNAMODB_REQUEST_TIMEOUT_MS = 1_000;
/** The SDK's back-off before attempt 2 and 3 after a timeout: at most 50 ms, then 100 ms. */
export const DYNAMODB_MAX_BACKOFF_MS = 50 + 100;
/** The longest one call can take outside a request, when every attempt times out: 3 × 1 s + 150 ms. */
export const DYNAMODB_CALL_BUDGET_MS =
  DYNAMODB_MAX_ATTEMPTS * DYNAMODB_REQUEST_TIMEOUT_MS + DYNAMODB_MAX_BACKOFF_MS;
/** Time to open a TCP connection, counted from the request: a wait for a free socket counts too. */
export const DYNAMODB_CONNECTION_TIMEOUT_MS = 1_000;
/** The SDK's default; no request waits, as the local server runs at most LOCAL_CONCURRENCY at once. */
export const DYNAMODB_MAX_SOCKETS = 50;

/** Region and credentials for DynamoDB Local, which accepts any; never used against AWS. */
export const LOCAL_CLIENT = {
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/** How every attempt is sent: without `throwOnRequestTimeout` the SDK only logs a warning, and waits on. */
export const DYNAMODB_HTTP_OPTIONS = {
  requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS,
  connectionTimeout: DYNAMODB_CONNECTION_TIMEOUT_MS,
  throwOnRequestTimeout: true,
  httpAgent: { keepAlive: true, maxSockets: DYNAMODB_MAX_SOCKETS },
  httpsAgent: { keepAlive: true, maxSockets: DYNAMODB_MAX_SOCKETS },
} as const satisfies NodeHttpHandlerOptions;

type HandlerOptions = NonNullable<Parameters<NodeHttpHandler['handle']>[1]>;

/**
 * The HTTP handler, bound per attempt to the request's deadline (the local server shares a client); then
 * attempts fail with `AbortError`, which the SDK does not retry (StoreUnavailableError).
 */
class DeadlineBoundHttpHandler extends NodeHttpHandler {
  override handle(request: Parameters<NodeHttpHandler['handle']>[0], options: HandlerOptions = {}) {
    const deadline = currentDeadline();
    if (!deadline) return super.handle(request, options);
    const given = options.abortSignal as AbortSignal | undefined;
    const abortSignal = given ? AbortSignal.any([given, deadline.signal]) : deadline.signal;
    return super.handle(request, { ...options, abortSignal });
  }
}

export const timeBudget = (): Pick<DynamoDBClientConfig, 'maxAttempts' | 'requestHandler'> => ({
  maxAttempts: DYNAMODB_MAX_ATTEMPTS,
  requestHandler: new DeadlineBoundHttpHandler(DYNAMODB_HTTP_OPTIONS),
});

/** Refuses, before it is sent, any call outside `grants`, with the error AWS gives (`AccessDeniedException`, 400). */
const enforceGrants = (client: DynamoDBClient, grants: DataGrants): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string; IndexName?: string };
      const refusal = refusalOf(grants, {
        action: `dynamodb:${(context.commandName ?? '').replace(/Command$/, '')}`,
        tableName: input.TableName,
        index: input.IndexName,
      });
      if (refusal !== undefined) {
        throw new DynamoDBServiceException({
          name: 'AccessDeniedException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
          message: refusal,
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'enforceGrants' },
  );
};

/** The functions' DynamoDB client: the time budget above; DynamoDB Local, and its grants, when configured. */
export const createDynamoDbClient = (config: DynamoDbConfig): DynamoDBClient => {
  const client = new DynamoDBClient({
    ...timeBudget(),
    ...(config.endpoint ? { endpoint: config.endpoint, ...LOCAL_CLIENT } : {}),
  });
  if (config.grants) enforceGrants(client, config.grants);
  return client;
};

export const documentClientOf = (client: DynamoDBClient): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

export const createDocumentClient = (config: DynamoDbConfig): DynamoDBDocumentClient =>
  documentClientOf(createDynamoDbClient(config));

/** A plain client for DynamoDB Local: dummy credentials, so no credential lookup reaches for AWS. */
export const createLocalClient = (endpoint: string, config: DynamoDBClientConfig = {}): DynamoDBClient =>
  new DynamoDBClient({ ...LOCAL_CLIENT, ...config, endpoint });
