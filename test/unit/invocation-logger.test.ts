import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, type Logger, withInvocationLogger } from '#shared/observability/logger';

/**
 * The keys each invocation's lines carry (shared/observability/logger.ts), read from what the real
 * Powertools Logger writes to stdout.
 */

type Line = Record<string, unknown>;

let written: string[] = [];
const capture = () => {
  written = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
};
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** The function's logger, in an environment Lambda started on demand (where a cold start is one). */
const functionLogger = () => {
  vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
  return createLogger({ logLevel: 'INFO' });
};

const lines = (): Line[] =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);

const contextOf = (awsRequestId: string) =>
  ({ functionName: 'getPet', awsRequestId, getRemainingTimeInMillis: () => 10_000 }) as unknown as Context;

/** A promise, and the function that fulfils it. */
const gate = () => {
  let open: () => void = () => undefined;
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open };
};

interface Call {
  readonly requestId?: string;
  /** Resolves when the handler may go on after its first line. */
  readonly proceed?: Promise<void>;
}

/** A function that logs through the function's logger, as middleware and the domain do. */
const functionOf = (logger: Logger, after?: (call: Call) => void) =>
  withInvocationLogger(
    logger,
    (call: Call) => call.requestId,
    async (call: Call) => {
      logger.info('started');
      await call.proceed;
      logger.info('finished');
      after?.(call);
      return 'done';
    },
  );

const pick = (line: Line) => ({
  message: line.message,
  request: line.function_request_id,
  correlation: line.correlation_id,
  cold: line.cold_start,
});

describe("an invocation's log lines", () => {
  it('carry its own keys, a cold start on the first only, and none of the invocation before', async () => {
    const logger = functionLogger();
    const handler = functionOf(logger);
    capture();

    await handler({ requestId: 'api-1' }, contextOf('lambda-1'));
    await handler({ requestId: 'api-2' }, contextOf('lambda-2'));
    await handler({}, contextOf('lambda-3'));

    expect(lines().map(pick)).toEqual([
      { message: 'started', request: 'lambda-1', correlation: 'api-1', cold: true },
      { message: 'finished', request: 'lambda-1', correlation: 'api-1', cold: true },
      { message: 'started', request: 'lambda-2', correlation: 'api-2', cold: false },
      { message: 'finished', request: 'lambda-2', correlation: 'api-2', cold: false },
      { message: 'started', request: 'lambda-3', correlation: undefined, cold: false },
      { message: 'finished', request: 'lambda-3', correlation: undefined, cold: false },
    ]);
  });

  it('need no logger of their own while invocations come one at a time, as in Lambda', async () => {
    const logger = functionLogger();
    const createChild = vi.spyOn(logger, 'createChild');
    const handler = functionOf(logger);
    capture();

    for (const id of ['1', '2', '3']) await handler({ requestId: `api-${id}` }, contextOf(`lambda-${id}`));

    expect(createChild).not.toHaveBeenCalled();
    expect(lines()).toHaveLength(6);
  });

  it('of overlapping invocations never name another one, and a free logger serves the next overlap', async () => {
    const logger = functionLogger();
    const createChild = vi.spyOn(logger, 'createChild');
    const handler = functionOf(logger);
    capture();
    const { passed: proceed, open: release } = gate();

    // Three at once: the first on the function's logger, the others on children.
    const overlapping = ['1', '2', '3'].map((id) =>
      handler({ requestId: `api-${id}`, proceed }, contextOf(`lambda-${id}`)),
    );
    release();
    await Promise.all(overlapping);
    // Two at once again: the children made before serve them.
    const { passed: proceedAgain, open: releaseAgain } = gate();
    const again = ['4', '5'].map((id) =>
      handler({ requestId: `api-${id}`, proceed: proceedAgain }, contextOf(`lambda-${id}`)),
    );
    releaseAgain();
    await Promise.all(again);

    const seen = lines().map(pick);
    expect(seen).toHaveLength(10);
    for (const line of seen)
      expect(line.correlation).toBe(`api-${String(line.request).slice('lambda-'.length)}`);
    expect(seen.filter((line) => line.cold).map((line) => line.request)).toEqual(['lambda-1', 'lambda-1']);
    expect(createChild).toHaveBeenCalledTimes(2);
  });

  it('are the only ones that name it: a line between invocations, or of none while one runs, names no request', async () => {
    const logger = functionLogger();
    capture();
    // A continuation set up outside any invocation (as a timer armed at start-up) that runs during one.
    const { passed: armed, open: fire } = gate();
    const fired = armed.then(() => logger.info('of no invocation'));
    const handler = withInvocationLogger(
      logger,
      (call: Call) => call.requestId,
      async (call: Call) => {
        logger.info('started');
        if (call.requestId === 'api-2') {
          fire();
          await fired;
        }
        return 'done';
      },
    );

    await handler({ requestId: 'api-1' }, contextOf('lambda-1'));
    logger.info('between');
    await handler({ requestId: 'api-2' }, contextOf('lambda-2'));

    expect(lines().map(pick)).toEqual([
      { message: 'started', request: 'lambda-1', correlation: 'api-1', cold: true },
      { message: 'between', request: undefined, correlation: undefined, cold: undefined },
      { message: 'started', request: 'lambda-2', correlation: 'api-2', cold: false },
      { message: 'of no invocation', request: undefined, correlation: undefined, cold: undefined },
    ]);
  });

  it('written after the invocation was answered still name it, while the next one runs', async () => {
    const logger = functionLogger();
    // The first invocation's code goes on after its answer (as when middy answers at the timeout).
    const { passed: lingering, open: lingered } = gate();
    const late = () => {
      logger.info('late');
      lingered();
    };
    const handler = withInvocationLogger(
      logger,
      (call: Call) => call.requestId,
      async (call: Call) => {
        if (call.requestId === 'api-1') void call.proceed?.then(() => late());
        logger.info('answered');
        return 'done';
      },
    );
    capture();
    const { passed: proceed, open: release } = gate();

    await handler({ requestId: 'api-1', proceed }, contextOf('lambda-1'));
    const second = withInvocationLogger(
      logger,
      (call: Call) => call.requestId,
      async () => {
        release();
        await lingering;
        logger.info('answered');
        return 'done';
      },
    );
    await second({ requestId: 'api-2' }, contextOf('lambda-2'));

    expect(lines().map(pick)).toEqual([
      { message: 'answered', request: 'lambda-1', correlation: 'api-1', cold: true },
      { message: 'late', request: 'lambda-1', correlation: 'api-1', cold: true },
      { message: 'answered', request: 'lambda-2', correlation: 'api-2', cold: false },
    ]);
  });
});
