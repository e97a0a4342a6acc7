import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';
import { ENV } from '#shared/config';

/** Overlapping invocations, each in its own `@aws/lambda-invoke-store`, as Lambda Managed Instances run.
 * Made on load, before any SDK call: the SDK's own, made on its first request, holds one at a time. */
const invokeStore = await InvokeStore.getInstanceAsync(true);

/** Powertools keeps log keys per invocation from now on, and refuses to log outside `inInvocationStore`. */
export const allowOverlappingInvocations = (concurrency: number): void => {
  process.env[ENV.lambdaMaxConcurrency] ??= String(concurrency);
};

/** `handler`, each of whose invocations runs in a store of its own, named by its Lambda request id. */
export const inInvocationStore =
  <E, R>(handler: (event: E, context: Context) => Promise<R>) =>
  (event: E, context: Context): Promise<R> =>
    invokeStore.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, () =>
      handler(event, context),
    );
