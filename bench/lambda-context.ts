import { randomUUID } from 'node:crypto';
import type { LambdaContextOptions } from '#tools/lambda/context';

/**
 * What the benchmark adds to tools/lambda/context.ts to invoke a handler as Lambda does. Imports
 * nothing at run time: this file is bundled into the child harnesses, which should load nothing
 * but themselves, that helper and the bundle under test.
 */

/** The Lambda context options of every invocation: the stack's region (and its memory size, the default). */
export const BENCH_CONTEXT: LambdaContextOptions = { region: 'us-east-1', logStreamName: 'bench' };

/**
 * What a handler's answer says: the HTTP status of a proxy result, 200 for an Allow policy.
 * The benchmark refuses to time a handler that fails.
 */
export const outcomeOf = (result: unknown): number => {
  if (result && typeof result === 'object') {
    if ('statusCode' in result && typeof result.statusCode === 'number') return result.statusCode;
    if ('policyDocument' in result) return 200;
  }
  return 0;
};

/**
 * The event as a new request: received now (a function's deadline counts from the request's
 * time, so a stored event would be past it), and with a new Idempotency-Key when it carries one,
 * so that every measured create with the header is a first request (a replay would cost and take
 * something else), in every process.
 */
export const freshRequest = <E>(event: E): E => {
  const { headers, multiValueHeaders, requestContext } = event as {
    headers?: Record<string, string>;
    multiValueHeaders?: Record<string, string[]>;
    requestContext?: { requestTimeEpoch?: number; requestTime?: string };
  };
  if (requestContext) {
    const now = new Date();
    requestContext.requestTimeEpoch = now.getTime();
    requestContext.requestTime = now.toUTCString();
  }
  for (const name of Object.keys(headers ?? {})) {
    if (name.toLowerCase() !== 'idempotency-key') continue;
    const key = randomUUID();
    if (headers) headers[name] = key;
    if (multiValueHeaders?.[name]) multiValueHeaders[name] = [key];
  }
  return event;
};
