import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreUnavailableError } from '#shared/domain/errors';

/** SDK error names that mean "not now": throttling, service trouble or a timed-out call. */
const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'AbortError',
]);

/** Node's codes of a failed connection; any other value of `code`, a string or not, is not one. */
const NETWORK_CODES: ReadonlySet<unknown> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Transient SDK failures become StoreUnavailableError (a 503); anything else is a bug, passed through. */
export const translateSdkError = (error: unknown, operation: string): unknown => {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (UNAVAILABLE.has(error.name) || NETWORK_CODES.has(code)) {
    return new StoreUnavailableError(`DynamoDB ${operation} failed: ${error.name}`, { cause: error });
  }
  return error;
};

/** Runs one SDK call of `operation` (GetItem, Scan, …), its failure translated by translateSdkError. */
export const sdkCall = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    throw translateSdkError(error, operation);
  }
};

/** The item a refused conditional write met (`ALL_OLD`), unmarshalled: the SDK leaves it in DynamoDB's format. */
export const refusedItem = (error: unknown): Record<string, unknown> | undefined => {
  if (!(error instanceof ConditionalCheckFailedException)) throw error;
  return error.Item && unmarshall(error.Item);
};
