import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import type { LogLevel } from '#shared/config';

export const SERVICE_NAME = 'pet-store';

export type { Logger } from '@aws-lambda-powertools/logger';

/** The logger of the invocation running now, and the function's logger it stands in for. */
const invocations = new AsyncLocalStorage<{ readonly parent: Logger; readonly logger: ServiceLogger }>();

/**
 * Powertools' Logger, able to say whether an invocation is the first it serves, and, while an
 * invocation runs (`withInvocationLogger`), writing every line through that invocation's own
 * logger: code handed the function's logger at build time (middleware, the domain) logs with the
 * invocation's keys, however many invocations run at once.
 */
class ServiceLogger extends Logger {
  /** True the first time only: the cold start of the execution environment this logger lives in. */
  takeColdStart(): boolean {
    return this.getColdStart();
  }

  protected override createLogger(options?: ConstructorParameters<typeof Logger>[0]): Logger {
    return new ServiceLogger(options);
  }

  protected override processLogItem(...item: Parameters<Logger['processLogItem']>): void {
    const current = invocations.getStore();
    if (current?.parent === this) current.logger.processLogItem(...item);
    else super.processLogItem(...item);
  }
}

/**
 * The key of API Gateway's request id on every line a request makes a function log: Powertools'
 * correlation id (`setCorrelationId`). Its value is the access log's `requestId` and the Error
 * body's, so one Logs Insights query finds them all (infra/constructs/log-queries.ts).
 */
export const REQUEST_ID_LOG_KEY = 'correlation_id';

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
  // setCorrelationId writes REQUEST_ID_LOG_KEY.
  if (requestId) child.setCorrelationId(requestId);
  return child;
};

/**
 * `handler`, each of whose invocations logs through a logger of its own (`invocationLogger`),
 * the request id taken from its event by `requestIdOf`. Every line the function's logger writes
 * while the invocation runs, wherever in its code, is that logger's: Powertools' own
 * `injectLambdaContext` sets and resets keys on the one shared logger instead, which names the
 * wrong request as soon as two invocations overlap (the local server runs them side by side).
 */
export const withInvocationLogger =
  <E, R>(
    logger: Logger,
    requestIdOf: (event: E) => string | undefined,
    handler: (event: E, context: Context) => Promise<R>,
  ): ((event: E, context: Context) => Promise<R>) =>
  (event, context) => {
    const own = invocationLogger(logger, context, requestIdOf(event));
    return own instanceof ServiceLogger
      ? invocations.run({ parent: logger, logger: own }, () => handler(event, context))
      : handler(event, context);
  };
