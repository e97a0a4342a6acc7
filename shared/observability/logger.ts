import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type middy from '@middy/core';
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
 * Structured JSON logs: Powertools' Logger, one per function, built at cold start. Without
 * `logLevel`, Powertools takes it from `POWERTOOLS_LOG_LEVEL` (set per stage by the stack).
 * Nothing logged anywhere holds an API key or a request body.
 */
export const createLogger = (options: { readonly logLevel?: LogLevel } = {}): Logger =>
  new Logger({
    serviceName: SERVICE_NAME,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
  });

/**
 * Each invocation's keys on every line the function's logger writes while it runs, as Powertools
 * documents them: the Lambda context (`function_request_id`, `cold_start`, …) by its
 * `injectLambdaContext` middleware, and, for an API request, API Gateway's request id as the
 * correlation id, the `requestId` of the Error the client gets (`requestIdOf`); an invocation
 * without one names none. Nothing is built per invocation.
 *
 * Lambda runs one invocation at a time in an environment: each sets its keys over the last one's.
 * Where several overlap in one process (the local server), Powertools keeps each invocation's keys
 * in its own store, from `@aws/lambda-invoke-store`, once `AWS_LAMBDA_MAX_CONCURRENCY` is set
 * (tools/lambda/invoke-store.ts); a line written after its invocation was answered then still
 * names it.
 */
export const invocationLogging = <E>(
  logger: Logger,
  requestIdOf: (event: E) => string | undefined,
): middy.MiddlewareObj<E>[] => [
  // Never the event, whatever POWERTOOLS_LOGGER_LOG_EVENT says: it holds the API key.
  injectLambdaContext(logger, { logEvent: false }),
  {
    before: ({ event }) => {
      const requestId = requestIdOf(event);
      if (requestId) logger.setCorrelationId(requestId);
      else logger.removeKeys([REQUEST_ID_LOG_KEY]);
    },
  },
];
