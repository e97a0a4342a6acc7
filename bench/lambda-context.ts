import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/**
 * What the child processes need to invoke a handler as Lambda does. Kept free of project imports:
 * it is bundled into the cold-start harness, which should load nothing but itself and the bundle.
 */

/** A Lambda context as the runtime passes it (the handlers read the request id and the deadline). */
export const lambdaContext = (functionName: string, timeoutMs = 10_000): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

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
