import { Logger } from '@aws-lambda-powertools/logger';
import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { LogLevel } from '#shared/config';

export const SERVICE_NAME = 'pet-store';

export type { Logger } from '@aws-lambda-powertools/logger';

/**
 * The key of API Gateway's request id on every line a request makes a function log: the same
 * name and value as in the API's access log and the Error body's `requestId`, so that one Logs
 * Insights query (`requestId = "…"`) finds them all (infra/constructs/log-queries.ts).
 */
export const REQUEST_ID_LOG_KEY = 'requestId';

/**
 * Appends the request's API Gateway id to every line logged until the invocation ends (used after
 * Powertools' `injectLambdaContext` with `resetKeys`, which removes it then).
 */
export const logRequestId = (logger: Logger): middy.MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    const requestId = event.requestContext?.requestId;
    if (requestId) logger.appendKeys({ [REQUEST_ID_LOG_KEY]: requestId });
  },
});

/**
 * Structured JSON logs with the Lambda request id on every line. Without `logLevel`, Powertools
 * takes it from `POWERTOOLS_LOG_LEVEL` (set per stage by the stack). Nothing logged anywhere
 * holds an API key or a request body.
 */
export const createLogger = (options: { readonly logLevel?: LogLevel } = {}): Logger =>
  new Logger({ serviceName: SERVICE_NAME, ...(options.logLevel ? { logLevel: options.logLevel } : {}) });
