import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authorizerFunction, authorizerHandler } from '#functions/authorizer';
import { SCOPE_RESOURCES } from '#functions/operations';
import { recordFor } from '#shared/auth/api-key';
import { createLogger } from '#shared/observability/logger';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { lambdaContext } from '#tools/lambda/context';
import { TEST_PLANS } from '../support/plans';

/**
 * What the authorizer logs: the id of a key it accepts, that it refused one, any other failure
 * with its cause, and nothing below the level it is configured with. Never the key.
 */

afterEach(() => vi.restoreAllMocks());

const ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/pets';
const context = lambdaContext('authorizer', { awsRequestId: 'r-1' });
const tokenEvent = (token: string): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken: token,
  methodArn: ARN,
});

/** What the process writes to stdout and stderr meanwhile. */
const captureOutput = (): string[] => {
  const written: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
  return written;
};

describe('the authorizer', () => {
  const key = 'psk_logged';
  const keys = (fail = false): ApiKeyRepository => ({
    findByHash: async (hash) => {
      if (fail) throw new Error('table missing');
      return hash === recordFor(key, 'ci').keyHash ? recordFor(key, 'ci') : undefined;
    },
    put: async () => undefined,
    putIfAbsent: async (record) => record,
    list: async () => [],
    revoke: async () => false,
    findById: async () => undefined,
    assignPlan: async () => false,
  });

  it('logs the id of a key it accepts, and that it refused one, never the key', async () => {
    const logger = createLogger({ logLevel: 'SILENT' });
    const info = vi.spyOn(logger, 'info');
    const handler = authorizerHandler({
      apiKeys: keys(),
      logger,
      plans: TEST_PLANS,
      scopes: SCOPE_RESOURCES,
    });

    await handler(tokenEvent(`Bearer ${key}`), context);
    await expect(handler(tokenEvent('Bearer psk_other'), context)).rejects.toThrow('Unauthorized');

    expect(info.mock.calls).toEqual([
      ['Key accepted', { keyId: recordFor(key, 'ci').keyId, plan: 'roomy', scopes: 'read:pets write:pets' }],
      ['Key refused'],
    ]);
  });

  it("names a read-only key's one scope, and warns of a key refused for a scope the stage does not have, naming it", async () => {
    const logger = createLogger({ logLevel: 'SILENT' });
    const info = vi.spyOn(logger, 'info');
    const warn = vi.spyOn(logger, 'warn');
    const holding = (scopes: string[]): ApiKeyRepository => ({
      ...keys(),
      findByHash: async () => ({ ...recordFor(key, 'ci'), scopes }),
    });

    await authorizerHandler({
      apiKeys: holding(['read:pets']),
      logger,
      plans: TEST_PLANS,
      scopes: SCOPE_RESOURCES,
    })(tokenEvent(`Bearer ${key}`), context);
    await expect(
      authorizerHandler({
        apiKeys: holding(['admin:pets']),
        logger,
        plans: TEST_PLANS,
        scopes: SCOPE_RESOURCES,
      })(tokenEvent(`Bearer ${key}`), context),
    ).rejects.toThrow('Unauthorized');

    expect(info.mock.calls).toEqual([
      ['Key accepted', { keyId: recordFor(key, 'ci').keyId, plan: 'roomy', scopes: 'read:pets' }],
    ]);
    expect(warn.mock.calls).toEqual([
      ['Key refused: it holds no scope, or one this stage does not have', { scopes: 'admin:pets' }],
    ]);
  });

  it('logs any other failure as an error with its cause', async () => {
    const logger = createLogger({ logLevel: 'SILENT' });
    const error = vi.spyOn(logger, 'error');
    const info = vi.spyOn(logger, 'info');
    const handler = authorizerHandler({
      apiKeys: keys(true),
      logger,
      plans: TEST_PLANS,
      scopes: SCOPE_RESOURCES,
    });

    await expect(handler(tokenEvent(`Bearer ${key}`), context)).rejects.toThrow('table missing');

    expect(error).toHaveBeenCalledWith('Authorizer failed', { error: new Error('table missing') });
    expect(info).not.toHaveBeenCalled();
  });

  it('built by its root, logs at the level configured', async () => {
    const handler = authorizerFunction.build({
      tables: { apiKeys: 'keys' },
      dynamoDb: { endpoint: 'http://127.0.0.1:9' },
      logLevel: 'WARN',
      metrics: false,
      plans: TEST_PLANS,
      scopes: SCOPE_RESOURCES,
    });
    const written = captureOutput();

    // Refused before any DynamoDB call: not a bearer token.
    await expect(handler(tokenEvent('Basic abc'), context)).rejects.toThrow('Unauthorized');

    expect(written).toEqual([]);
  });
});
