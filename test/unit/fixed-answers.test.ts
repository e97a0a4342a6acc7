import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authorizer } from '#functions/authorizer/contract';
import { authorizerRoot } from '#functions/authorizer/root';
import { CreatePetHeaders } from '#functions/create-pet/contract';
import { OPERATIONS } from '#functions/operations';
import { translateSdkError } from '#shared/adapters/dynamodb/errors';
import { ENV } from '#shared/config';
import { StoreUnavailableError } from '#shared/domain/errors';
import { ERROR_STATUS } from '#shared/http/error-body';
import { GATEWAY_RESPONSES } from '#shared/http/gateway-behaviour';
import { DOCUMENTED_ERROR_STATUS } from '../support/documented-errors';

/**
 * Tables the service and the stack are built from, held to the values the API documents
 * (docs/openapi.yaml, docs/api.md) and the names other software reads, written out here.
 */

describe("API Gateway's own answers", () => {
  it('are the documented code and message for each situation', () => {
    const unauthorized = {
      code: 'UNAUTHORIZED',
      message: 'A valid API key is required: send "Authorization: Bearer <key>"',
    };
    const internal = { code: 'INTERNAL_ERROR', message: 'An internal error occurred' };

    expect(GATEWAY_RESPONSES).toEqual({
      UNAUTHORIZED: unauthorized,
      ACCESS_DENIED: unauthorized,
      MISSING_AUTHENTICATION_TOKEN: { code: 'NOT_FOUND', message: 'No such resource' },
      THROTTLED: { code: 'TOO_MANY_REQUESTS', message: 'Too many requests; slow down and retry' },
      QUOTA_EXCEEDED: { code: 'TOO_MANY_REQUESTS', message: 'Request quota exceeded' },
      REQUEST_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request is too large' },
      UNSUPPORTED_MEDIA_TYPE: {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Content-Type must be application/json',
      },
      AUTHORIZER_FAILURE: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'Authorization is temporarily unavailable; retry shortly',
      },
      AUTHORIZER_CONFIGURATION_ERROR: internal,
      INTEGRATION_FAILURE: internal,
      INTEGRATION_TIMEOUT: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service did not answer in time; retry shortly',
      },
      DEFAULT_4XX: { code: 'VALIDATION_FAILED', message: 'The request was rejected' },
      DEFAULT_5XX: internal,
    });
  });
});

describe('the functions', () => {
  it('each have the entry file their name gives, the authorizer included', () => {
    const entries = [authorizerRoot, ...OPERATIONS].map((root) => root.entry);

    expect(entries).toEqual([
      'functions/authorizer/lambda.ts',
      'functions/list-pets/lambda.ts',
      'functions/create-pet/lambda.ts',
      'functions/get-pet/lambda.ts',
    ]);
    for (const entry of entries) expect(existsSync(entry)).toBe(true);
  });

  it('read the key from the Authorization header, for API Gateway as for the local gateway', () => {
    expect(authorizer.identitySource).toBe('Authorization');
  });
});

describe('error codes', () => {
  it('each travel with their documented status', () => {
    expect(ERROR_STATUS).toEqual(DOCUMENTED_ERROR_STATUS);
  });
});

describe('environment variables', () => {
  it("name Powertools' own variables as Powertools reads them", () => {
    expect([ENV.logLevel, ENV.serviceName, ENV.metricsNamespace]).toEqual([
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_SERVICE_NAME',
      'POWERTOOLS_METRICS_NAMESPACE',
    ]);
  });
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

describe('an Idempotency-Key', () => {
  it.each([
    ['empty', ''],
    ['of 256 characters', 'k'.repeat(256)],
    ['with a character beyond ASCII', 'clé'],
    ['with a control character', 'a\tb'],
  ])('is refused %s', (_case, key) => {
    const result = CreatePetHeaders.safeParse({ 'idempotency-key': key });

    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      'must be 1 to 255 printable ASCII characters',
    ]);
  });

  it('of 1 to 255 printable ASCII characters is taken as it is', () => {
    for (const key of ['k', 'k'.repeat(255), ' ~!"#$%&']) {
      expect(CreatePetHeaders.parse({ 'idempotency-key': key })).toEqual({ 'idempotency-key': key });
    }
    expect(CreatePetHeaders.parse({})).toEqual({});
  });
});
