import type { Context } from 'aws-lambda';
import { lambdaContext as localLambdaContext } from '#infra/local/lambda-context';

/**
 * What the child processes need to invoke a handler as Lambda does. Imports only
 * infra/local/lambda-context.ts, itself free of project imports: this file is bundled into the
 * cold-start harness, which should load nothing but itself and the bundle.
 */

/** A Lambda context as the runtime passes it, in the stack's region and memory size. */
export const lambdaContext = (functionName: string): Context =>
  localLambdaContext(functionName, { region: 'us-east-1', logStreamName: 'bench' });

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
