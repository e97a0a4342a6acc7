import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type middy from '@middy/core';
import type { LogLevel } from '#shared/config';

export const SERVICE_NAME = 'pet-store';

export type { Logger } from '@aws-lambda-powertools/logger';

/** The key of the request id on every line a request logs: Powertools' correlation id, as in the access log. */
export const REQUEST_ID_LOG_KEY = 'correlation_id';

/** Keys Powertools writes on every line: its level, the message, and the invocation's Lambda request id. */
export const POWERTOOLS = { level: 'level', message: 'message', invocation: 'function_request_id' } as const;

/** Powertools' Logger, one per function. Nothing logged anywhere holds an API key or a request body. */
export const createLogger = (options: { readonly logLevel?: LogLevel } = {}): Logger =>
  new Logger({
    serviceName: SERVICE_NAME,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
  });

/** Each invocation's keys on its lines, kept apart where they overlap by `AWS_LAMBDA_MAX_CONCURRENCY`. */
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
