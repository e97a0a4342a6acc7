import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import type { LogLevel } from '#shared/config';

export const SERVICE_NAME = 'pet-store';

export type { Logger } from '@aws-lambda-powertools/logger';

/** An invocation: what its lines carry, and the logger it took to write them. */
interface Invocation {
  /** The function's logger, which every piece of the function's code was handed. */
  readonly parent: ServiceLogger;
  readonly context: Context;
  readonly requestId: string | undefined;
  /** Whether it is the function's first: its lines' `cold_start`, whichever logger writes them. */
  readonly coldStart: boolean;
  /** The logger serving it: the function's own, or a child when it is busy with another. */
  readonly logger: ServiceLogger;
  /** A logger of its own for lines written after it ended (see `loggerOf`). */
  late?: ServiceLogger;
}

/** The invocation running now, in this asynchronous context. */
const invocations = new AsyncLocalStorage<Invocation>();

/**
 * Powertools' Logger, serving one invocation at a time with its keys, and, while an invocation
 * runs (`withInvocationLogger`), writing every line of the function's logger through the logger
 * serving that invocation: code handed the function's logger at build time (middleware, the
 * domain) logs with the invocation's keys, however many invocations run at once.
 */
class ServiceLogger extends Logger {
  /** The invocation this logger serves now; none when it is free. */
  #serving: Invocation | undefined;
  /** Children made for invocations that overlapped, free to serve another. */
  readonly #free: ServiceLogger[] = [];
  /** Writes the lines of no invocation (a timer set at start-up) while this logger serves one. */
  #outside: ServiceLogger | undefined;

  protected override createLogger(options?: ConstructorParameters<typeof Logger>[0]): Logger {
    return new ServiceLogger(options);
  }

  /**
   * Starts serving an invocation: the function's logger itself when it is free (always, in
   * Lambda, where an environment runs one invocation at a time: nothing is built per request), a
   * free child, or a new child when invocations overlap (the local server).
   */
  begin(context: Context, requestId: string | undefined): Invocation {
    const logger = this.#serving ? (this.#free.pop() ?? this.#newChild()) : this;
    const invocation: Invocation = {
      parent: this,
      context,
      requestId,
      coldStart: this.getColdStart(),
      logger,
    };
    logger.#serve(invocation);
    return invocation;
  }

  /** Ends an invocation: its keys are forgotten, and its logger serves the next one. */
  end(invocation: Invocation): void {
    const { logger } = invocation;
    if (logger.#serving !== invocation) return;
    logger.#serving = undefined;
    logger.resetKeys();
    if (logger !== this) this.#free.push(logger);
  }

  /** The logger a line of `invocation` goes through. */
  loggerOf(invocation: Invocation): ServiceLogger {
    if (invocation.logger.#serving === invocation) return invocation.logger;
    // A line written after its invocation was answered (middy answers at the timeout while the
    // handler may still run): its logger may serve another request now, so it gets one of its own.
    if (!invocation.late) {
      invocation.late = this.#newChild();
      invocation.late.#serve(invocation);
    }
    return invocation.late;
  }

  /**
   * The invocation's keys, as temporary keys that `end` forgets: the ones Powertools'
   * `addContext` writes, by the same names and in the same place on the line, and the request id.
   * (`addContext` itself would stay on the logger after the invocation, with no way to remove it.)
   */
  #serve(invocation: Invocation): void {
    this.#serving = invocation;
    const { context } = invocation;
    this.appendKeys({
      cold_start: invocation.coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    });
    if (invocation.requestId) this.setCorrelationId(invocation.requestId);
  }

  /** A child: the function's settings, none of the keys of the invocation it serves now. */
  #newChild(): ServiceLogger {
    const child = this.createChild() as ServiceLogger;
    child.resetKeys();
    return child;
  }

  /** The logger a line goes through: its invocation's, or for a line of none, one with no keys. */
  #writerOf(invocation: Invocation | undefined): ServiceLogger {
    if (invocation?.parent === this) return this.loggerOf(invocation);
    // A line of no invocation must not carry the keys of the one this logger serves.
    if (invocation === undefined && this.#serving) {
      this.#outside ??= this.#newChild();
      return this.#outside;
    }
    return this;
  }

  protected override processLogItem(...item: Parameters<Logger['processLogItem']>): void {
    const logger = this.#writerOf(invocations.getStore());
    if (logger === this) super.processLogItem(...item);
    else logger.processLogItem(...item);
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
 * the function's logger; each invocation logs with its own keys (`withInvocationLogger`).
 */
export const createLogger = (options: { readonly logLevel?: LogLevel } = {}): Logger =>
  new ServiceLogger({
    serviceName: SERVICE_NAME,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
  });

/**
 * `handler`, each of whose invocations logs with its own keys: the Lambda context
 * (`function_request_id`, `cold_start`, …) and, for an API request, API Gateway's request id as
 * `correlation_id`, the `requestId` of the Error the client gets (`requestIdOf`). Every line the
 * function's logger writes while the invocation runs, wherever in its code, carries them, and the
 * next invocation does not. Powertools' own `injectLambdaContext` sets and resets keys on the one
 * shared logger instead, which names the wrong request as soon as two invocations overlap (the
 * local server runs them side by side): here an overlapping invocation gets a child of its own.
 */
export const withInvocationLogger =
  <E, R>(
    logger: Logger,
    requestIdOf: (event: E) => string | undefined,
    handler: (event: E, context: Context) => Promise<R>,
  ): ((event: E, context: Context) => Promise<R>) =>
  async (event, context) => {
    if (!(logger instanceof ServiceLogger)) return handler(event, context);
    const invocation = logger.begin(context, requestIdOf(event));
    try {
      return await invocations.run(invocation, () => handler(event, context));
    } finally {
      logger.end(invocation);
    }
  };
