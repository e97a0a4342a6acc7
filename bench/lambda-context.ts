import { randomUUID } from 'node:crypto';
import type { LambdaContextOptions } from '#tools/lambda/context';

/** Bundled into the child harness: it imports nothing of the project at run time. */

export const BENCH_CONTEXT: LambdaContextOptions = { region: 'us-east-1', logStreamName: 'bench' };

/** A header value the bench replaces with a new one in every invocation (an Idempotency-Key). */
export const NEW_FOR_EACH_REQUEST = '<new for each request>';

/**
 * What a handler's answer says: the HTTP status of a proxy result, 200 for an Allow policy, 200
 * for a stream batch with no batch item failure (500 with one), else 0.
 */
export const outcomeOf = (result: unknown): number => {
  if (result && typeof result === 'object') {
    if ('statusCode' in result && typeof result.statusCode === 'number') return result.statusCode;
    if ('policyDocument' in result) return 200;
    if ('batchItemFailures' in result && Array.isArray(result.batchItemFailures))
      return result.batchItemFailures.length === 0 ? 200 : 500;
  }
  return 0;
};

/** A copy of the event received now, with a new value in every header that asks for one. */
export const freshRequest = <E>(stored: E): E => {
  const event = structuredClone(stored);
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
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== NEW_FOR_EACH_REQUEST || !headers) continue;
    headers[name] = randomUUID();
    if (multiValueHeaders) multiValueHeaders[name] = [headers[name]];
  }
  return event;
};

type Request = { httpMethod?: string; pathParameters?: Record<string, string> | null };

/** A write to `/pets/{petId}`: its pet is put back after it, or given its own (bench/tables.ts). */
export const changesItsPet = (event: unknown): boolean => {
  const { httpMethod = 'GET', pathParameters } = event as Request;
  return !['GET', 'HEAD', 'OPTIONS', 'POST'].includes(httpMethod) && pathParameters?.petId !== undefined;
};

export const removesItsPet = (event: unknown): boolean =>
  changesItsPet(event) && (event as Request).httpMethod === 'DELETE';
