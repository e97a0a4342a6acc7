import { describe, expect, it } from 'vitest';
import { translateSdkError } from '#shared/adapters/dynamodb/errors';
import { StoreUnavailableError } from '#shared/domain/errors';

const sdkError = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), { name, ...extra });

describe('translateSdkError', () => {
  it.each([
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'InternalServerError',
    'ServiceUnavailable',
    'TimeoutError',
  ])('turns %s into StoreUnavailableError, keeping the cause', (name) => {
    const original = sdkError(name);

    const translated = translateSdkError(original, 'Query');

    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect((translated as Error).cause).toBe(original);
  });

  it('turns a refused connection into StoreUnavailableError', () => {
    expect(translateSdkError(sdkError('Error', { code: 'ECONNREFUSED' }), 'GetItem')).toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  it.each(['ValidationException', 'ResourceNotFoundException', 'AccessDeniedException'])(
    'passes %s through: it is a bug or misconfiguration, not a passing fault',
    (name) => {
      const original = sdkError(name);
      expect(translateSdkError(original, 'Scan')).toBe(original);
    },
  );
});

describe('failures of DynamoDB that mean "not now"', () => {
  it.each([
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'InternalServerError',
    'ServiceUnavailable',
    'TimeoutError',
    'RequestTimeout',
    'RequestTimeoutException',
    'AbortError',
  ])('include the SDK error %s', (name) => {
    const error = Object.assign(new Error(name), { name });

    expect(translateSdkError(error, 'Scan')).toEqual(
      new StoreUnavailableError(`DynamoDB Scan failed: ${name}`),
    );
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])(
    'include the network error %s',
    (code) => {
      const error = Object.assign(new Error(code), { code });

      expect(translateSdkError(error, 'Scan')).toBeInstanceOf(StoreUnavailableError);
    },
  );

  it('leave out errors that are bugs, such as a validation error', () => {
    const error = Object.assign(new Error('One or more parameter values were invalid'), {
      name: 'ValidationException',
    });

    expect(translateSdkError(error, 'Scan')).toBe(error);
  });
});
