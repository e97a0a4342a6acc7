import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '#shared/config';
import {
  createLogger,
  invocationLogging,
  type Logger,
  REQUEST_ID_LOG_KEY,
} from '#shared/observability/logger';
import { lambdaContext } from '#tools/lambda/context';
import { inInvocationStore } from '#tools/lambda/invoke-store';

/**
 * The keys each invocation's lines carry, read from what the real Powertools Logger writes to
 * stdout: as Lambda runs a function (one invocation at a time, `invocationLogging` in its middy
 * stack), and as the local gateway runs it (invocations side by side, each in its invoke store).
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

/** Invocations that overlap in this process, as the local gateway runs them. */
const overlapping = () => vi.stubEnv(ENV.lambdaMaxConcurrency, '8');

const lines = (): Line[] =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);

const contextOf = (awsRequestId: string): Context => lambdaContext('getPet', { awsRequestId });

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
const functionOf = (logger: Logger, body?: (call: Call) => Promise<void>) =>
  middy<Call, string>()
    .use(invocationLogging(logger, (call: Call) => ({ [REQUEST_ID_LOG_KEY]: call.requestId })))
    .handler(async (call) => {
      logger.info('started');
      await (body ? body(call) : call.proceed);
      logger.info('finished');
      return 'done';
    });

const pick = (line: Line) => ({
  message: line.message,
  request: line.function_request_id,
  correlation: line.correlation_id,
  cold: line.cold_start,
});

describe("an invocation's log lines, one invocation at a time (Lambda)", () => {
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

  it("come from the function's one logger: nothing is built per invocation", async () => {
    const logger = functionLogger();
    const createChild = vi.spyOn(logger, 'createChild');
    const handler = functionOf(logger);
    capture();

    for (const id of ['1', '2', '3']) await handler({ requestId: `api-${id}` }, contextOf(`lambda-${id}`));

    expect(createChild).not.toHaveBeenCalled();
    expect(lines()).toHaveLength(6);
  });

  it('never include the event, which holds the API key, even where Powertools is told to log events', async () => {
    vi.stubEnv('POWERTOOLS_LOGGER_LOG_EVENT', 'true');
    const logger = functionLogger();
    const handler = functionOf(logger);
    capture();

    await handler({ requestId: 'Bearer psk_secret' }, contextOf('lambda-1'));

    expect(lines().map((line) => line.message)).toEqual(['started', 'finished']);
  });

  it('are the only ones that name it: a line written at cold start, before any invocation, names none', async () => {
    const logger = functionLogger();
    const handler = functionOf(logger);
    capture();

    logger.info('at cold start');
    await handler({ requestId: 'api-1' }, contextOf('lambda-1'));

    expect(lines().map(pick)[0]).toEqual({
      message: 'at cold start',
      request: undefined,
      correlation: undefined,
      cold: undefined,
    });
  });
});

describe("an invocation's log lines, invocations side by side (the local server)", () => {
  it('never name another invocation, however they interleave', async () => {
    overlapping();
    const logger = functionLogger();
    const handler = inInvocationStore(functionOf(logger));
    capture();
    const first = gate();
    const second = gate();

    // Three at once, each waiting for another's line before going on.
    const running = [
      handler({ requestId: 'api-1', proceed: first.passed }, contextOf('lambda-1')),
      handler({ requestId: 'api-2', proceed: second.passed }, contextOf('lambda-2')),
      handler({ requestId: 'api-3' }, contextOf('lambda-3')),
    ];
    second.open();
    await running[1];
    first.open();
    await Promise.all(running);

    const seen = lines().map(pick);
    expect(seen).toHaveLength(6);
    for (const line of seen)
      expect(line.correlation).toBe(`api-${String(line.request).slice('lambda-'.length)}`);
    expect(seen.filter((line) => line.cold).map((line) => line.request)).toEqual(['lambda-1', 'lambda-1']);
    // All three had started before any finished, and lambda-1 finished last.
    expect(seen.slice(0, 3).map((line) => line.message)).toEqual(['started', 'started', 'started']);
    expect(seen.at(-1)).toMatchObject({ message: 'finished', request: 'lambda-1' });
  });

  it('written after the invocation was answered still name it, while the next one runs', async () => {
    overlapping();
    const logger = functionLogger();
    // The first invocation's code goes on after its answer (as when middy answers at the timeout).
    const { passed: lingering, open: lingered } = gate();
    const { passed: proceed, open: release } = gate();
    const handler = inInvocationStore(
      functionOf(logger, async (call) => {
        if (call.requestId === 'api-1') {
          void proceed.then(() => {
            logger.info('late');
            lingered();
          });
          return;
        }
        release();
        await lingering;
      }),
    );
    capture();

    await handler({ requestId: 'api-1' }, contextOf('lambda-1'));
    await handler({ requestId: 'api-2' }, contextOf('lambda-2'));

    expect(lines().map(pick)).toEqual([
      { message: 'started', request: 'lambda-1', correlation: 'api-1', cold: true },
      { message: 'finished', request: 'lambda-1', correlation: 'api-1', cold: true },
      { message: 'started', request: 'lambda-2', correlation: 'api-2', cold: false },
      { message: 'late', request: 'lambda-1', correlation: 'api-1', cold: true },
      { message: 'finished', request: 'lambda-2', correlation: 'api-2', cold: false },
    ]);
  });
});
