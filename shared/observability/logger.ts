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

/** The keys an invocation's lines carry, by name; a key without a value is left off its lines. */
export type InvocationLogKeys = Readonly<Record<string, string | undefined>>;

/**
 * Each invocation's keys (`keysOf` its event: the request id as REQUEST_ID_LOG_KEY, who called) on
 * its lines, kept apart where they overlap by `AWS_LAMBDA_MAX_CONCURRENCY`.
 */
export const invocationLogging = <E>(
  logger: Logger,
  keysOf: (event: E) => InvocationLogKeys,
): middy.MiddlewareObj<E>[] => [
  // Never the event, whatever POWERTOOLS_LOGGER_LOG_EVENT says: it holds the API key.
  injectLambdaContext(logger, { logEvent: false }),
  {
    before: ({ event }) => {
      const keys = Object.entries(keysOf(event));
      // One invocation after another share the logger's keys outside an invoke store: none of the last one's stays.
      logger.removeKeys(keys.filter(([, value]) => value === undefined).map(([name]) => name));
      logger.appendKeys(Object.fromEntries(keys.filter(([, value]) => value !== undefined)));
    },
  },
];
