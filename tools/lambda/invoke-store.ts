import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';
import { ENV } from '#shared/config';

/**
 * Invocations that overlap in one process, as a Lambda environment that serves several at once
 * runs them (Lambda Managed Instances): each in a store of its own (`@aws/lambda-invoke-store`),
 * where Powertools' logger keeps its keys once `AWS_LAMBDA_MAX_CONCURRENCY` is set. The local
 * gateway runs its functions so.
 *
 * The store is made when this module loads, before any AWS SDK call of the process: the SDK asks
 * for it on its first request, and the one made then would hold one invocation at a time.
 */
const invokeStore = await InvokeStore.getInstanceAsync(true);

/**
 * Tells Powertools that this process runs up to `concurrency` invocations at once, so that it
 * keeps each one's log keys in its store. From then on every line a function logs must come from
 * an invocation run by `inInvocationStore`: Powertools refuses to log outside one.
 */
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
