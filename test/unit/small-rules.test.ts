import type { APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DYNAMODB_CALL_BUDGET_MS } from '#shared/adapters/dynamodb/client';
import { recordFor } from '#shared/auth/api-key';
import { authorizerRoot } from '#shared/composition/authorizer';
import { NewPet } from '#shared/domain/pet';
import { authorizerHandler } from '#shared/handlers/authorizer';
import { preflightHeaders } from '#shared/http/cors';
import { isJsonUtf8 } from '#shared/http/media-type';
import { translateIdempotencyError } from '#shared/http/middleware/idempotency';
import { createLogger } from '#shared/observability/logger';
import { createObservability } from '#shared/observability/observability';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { LocalConfigError, readLocalSettings } from '#tools/local/settings';

/** Rules of a line or two each, with the values they promise written out. */

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/pets';
const context = { functionName: 'authorizer', awsRequestId: 'r-1' } as unknown as Context;
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

describe('API keys', () => {
  it('are named by an id made of the first 12 hex digits of their SHA-256 (a known-answer vector)', () => {
    const record = recordFor('psk_known-answer', 'ci', new Date('2026-01-01T00:00:00Z'));

    expect(record).toEqual({
      keyHash: 'd270b99271d11f2e446882ec8f2ee8a6571880a66e7f7ff1086cde3e88c2bb97',
      keyId: 'key-d270b99271d1',
      name: 'ci',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
  });
});

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
  });

  /** The JSON lines Powertools writes (info to stdout, errors to stderr) while `run` runs. */
  const linesWritten = async (run: () => Promise<unknown>): Promise<Record<string, unknown>[]> => {
    const written: string[] = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      }),
    );
    try {
      await run();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    return written
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  it('logs the id of a key it accepts, and that it refused one, never the key', async () => {
    const handler = authorizerHandler({ apiKeys: keys(), logger: createLogger({ logLevel: 'INFO' }) });

    const lines = await linesWritten(async () => {
      await handler(tokenEvent(`Bearer ${key}`), context);
      await expect(handler(tokenEvent('Bearer psk_other'), context)).rejects.toThrow('Unauthorized');
    });

    expect(lines.map(({ message, keyId }) => [message, keyId])).toEqual([
      ['Key accepted', recordFor(key, 'ci').keyId],
      ['Key refused', undefined],
    ]);
    expect(JSON.stringify(lines)).not.toContain('psk_');
  });

  it('logs any other failure as an error with its cause', async () => {
    const handler = authorizerHandler({ apiKeys: keys(true), logger: createLogger({ logLevel: 'INFO' }) });

    const lines = await linesWritten(() =>
      expect(handler(tokenEvent(`Bearer ${key}`), context)).rejects.toThrow('table missing'),
    );

    expect(lines).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message: 'Authorizer failed',
        error: expect.objectContaining({ message: 'table missing' }),
      }),
    ]);
  });

  it('built by its root, logs at the level configured', async () => {
    const handler = authorizerRoot.build({
      tables: { apiKeys: 'keys' },
      dynamoDb: { endpoint: 'http://127.0.0.1:9' },
      logLevel: 'WARN',
      metrics: false,
    });
    const written = captureOutput();

    // Refused before any DynamoDB call: not a bearer token.
    await expect(handler(tokenEvent('Basic abc'), context)).rejects.toThrow('Unauthorized');

    expect(written).toEqual([]);
  });
});

describe('observability', () => {
  it('tags every metric with the stage it is given', () => {
    const { metrics } = createObservability({ metrics: true, stage: 'production' });
    const written = captureOutput();

    metrics.countError('NOT_FOUND');

    expect(JSON.parse(written.join(''))).toMatchObject({ Errors: 1, code: 'NOT_FOUND', stage: 'production' });
  });
});

describe('a name and a category', () => {
  it('say the safe integer range a JavaScript client can hold', () => {
    // Past 2^53−1 both the integer check and the range check object, in the same words.
    const messages = (categoryId: number) => [
      ...new Set(NewPet.safeParse({ name: 'Rex', categoryId }).error?.issues.map((issue) => issue.message)),
    ];

    expect(messages(2 ** 53)).toEqual(['must be at most 9007199254740991']);
    expect(messages(-(2 ** 53))).toEqual(['must be at least 1']);
    expect(messages(1.5)).toEqual(['must be an integer']);
  });
});

describe('JSON in UTF-8', () => {
  it('takes no parameter but charset, whatever its value', () => {
    expect(isJsonUtf8('application/json; format=utf-8')).toBe(false);
    expect(isJsonUtf8('application/json; charset=utf-8')).toBe(true);
  });
});

describe('a preflight', () => {
  it('lists the methods of the resource, comma-separated', () => {
    expect(preflightHeaders(['*'], 'https://a.example', ['GET', 'POST'])).toMatchObject({
      'Access-Control-Allow-Methods': 'GET, POST',
    });
  });
});

describe('idempotency errors', () => {
  it('pass any other error on as it is, cause and all', () => {
    const other = new Error('something else', { cause: new Error('inner') });

    expect(translateIdempotencyError(other)).toBe(other);
  });
});

describe('the DynamoDB time budget', () => {
  it('ends a call whose every attempt times out after 3 × 1 s and 150 ms of back-off', () => {
    expect(DYNAMODB_CALL_BUDGET_MS).toBe(3_150);
  });
});

describe('npm start settings', () => {
  it('refuses a port with anything after its digits, and an endpoint that is not a URL', () => {
    expect(() => readLocalSettings({ PORT: '80abc' })).toThrow(
      new LocalConfigError('PORT must be a port number (0 to 65535), not "80abc"'),
    );
    expect(() => readLocalSettings({ DYNAMODB_ENDPOINT: 'not a url' })).toThrow(
      new LocalConfigError(
        'DYNAMODB_ENDPOINT must be an http(s) URL such as http://127.0.0.1:8000, not "not a url"',
      ),
    );
  });
});
