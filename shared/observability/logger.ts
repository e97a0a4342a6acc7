import { Logger } from '@aws-lambda-powertools/logger';
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { LogLevel } from '#shared/config';

export const SERVICE_NAME = 'pet-store';

export type { Logger } from '@aws-lambda-powertools/logger';

/** Powertools' Logger, and its children, able to say whether an invocation is the first it serves. */
class ServiceLogger extends Logger {
  /** True the first time only: the cold start of the execution environment this logger lives in. */
  takeColdStart(): boolean {
    return this.getColdStart();
  }

  protected override createLogger(options?: ConstructorParameters<typeof Logger>[0]): Logger {
    return new ServiceLogger(options);
  }
}

/**
 * Structured JSON logs. Without `logLevel`, Powertools takes it from `POWERTOOLS_LOG_LEVEL` (set
 * per stage by the stack). Nothing logged anywhere holds an API key or a request body. This is
 * the function's logger; each invocation logs through a child of it (`invocationLogger`).
 */
export const createLogger = (options: { readonly logLevel?: LogLevel } = {}): Logger =>
  new ServiceLogger({
    serviceName: SERVICE_NAME,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
  });

/**
 * The logger of one invocation: a child of the function's logger whose every line carries the
 * Lambda context (`function_request_id`, `cold_start`, …) and, for an API request, API Gateway's
 * request id as `correlation_id`, the `requestId` of the Error the client gets. A logger of its
 * own, not the function's logger with keys set and reset per invocation: the local server runs
 * invocations of one function concurrently, and shared keys would name another request.
 */
export const invocationLogger = (logger: Logger, context: Context, requestId?: string): Logger => {
  const child = logger.createChild();
  // A new logger counts its first invocation as a cold start: it is one only if the function's is.
  const cold = logger instanceof ServiceLogger ? logger.takeColdStart() : true;
  if (!cold && child instanceof ServiceLogger) child.takeColdStart();
  child.addContext(context);
  if (requestId) child.setCorrelationId(requestId);
  return child;
};

/** The invocation logger of each request being handled. */
const loggers = new WeakMap<object, Logger>();

/**
 * Middleware giving each invocation its logger (`invocationLogger`), with the request id of the
 * API Gateway event it handles; the steps after it log through `loggerOf(request)`.
 */
export const invocationLogging = (logger: Logger): middy.MiddlewareObj => ({
  before: (request) => {
    const requestId = (request.event as { requestContext?: { requestId?: unknown } } | undefined)
      ?.requestContext?.requestId;
    loggers.set(
      request,
      invocationLogger(logger, request.context, typeof requestId === 'string' ? requestId : undefined),
    );
  },
});

/** The logger of the invocation handling `request`; `fallback` before invocationLogging has run. */
export const loggerOf = (request: object, fallback: Logger): Logger => loggers.get(request) ?? fallback;
