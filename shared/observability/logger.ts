import { Logger } from '@aws-lambda-powertools/logger';
import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { LogLevel } from '#shared/config';

export const SERVICE_NAME = 'pet-store';

export type { Logger } from '@aws-lambda-powertools/logger';

/**
 * The key of API Gateway's request id on every line a request makes a function log: Powertools'
 * correlation id (`setCorrelationId`). Its value is the access log's `requestId` and the Error
 * body's, so one Logs Insights query finds them all (infra/constructs/log-queries.ts).
 */
export const REQUEST_ID_LOG_KEY = 'correlation_id';

/**
 * Sets the request's API Gateway id as the correlation id of every line logged until the
 * invocation ends (used after Powertools' `injectLambdaContext` with `resetKeys`, which removes
 * it then).
 */
export const logRequestId = (logger: Logger): middy.MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    const requestId = event.requestContext?.requestId;
    if (requestId) logger.setCorrelationId(requestId);
  },
});

/**
 * Structured JSON logs with the Lambda request id on every line. Without `logLevel`, Powertools
 * takes it from `POWERTOOLS_LOG_LEVEL` (set per stage by the stack). Nothing logged anywhere
 * holds an API key or a request body.
 */
export const createLogger = (options: { readonly logLevel?: LogLevel } = {}): Logger =>
  new Logger({ serviceName: SERVICE_NAME, ...(options.logLevel ? { logLevel: options.logLevel } : {}) });
