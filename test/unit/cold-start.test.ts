import { createHmac } from 'node:crypto';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authorizerFunction } from '#functions/authorizer';
import { getPetFunction } from '#functions/get-pet';
import { ALL_PETS, PETS_BY_STATUS } from '#functions/list-pets';
import {
  createDynamoDbClient,
  createLocalClient,
  DYNAMODB_CALL_BUDGET_MS,
  DYNAMODB_HTTP_OPTIONS,
  timeBudget,
} from '#shared/adapters/dynamodb/client';
import { translateSdkError } from '#shared/adapters/dynamodb/errors';
import { stageArnOf, UnauthorizedError } from '#shared/auth/authorize';
import { fromEnvironment } from '#shared/composition/environment';
import { moduleOf } from '#shared/composition/function';
import { ConfigError, readAllowedOrigins, tableName } from '#shared/config';
import { PetService } from '#shared/domain/pet-service';
import { decodeCursor } from '#shared/http/cursor';
import { CURSOR_PROBLEM } from '#shared/http/cursor-problems';
import { createLogger } from '#shared/observability/logger';
import { lambdaContext } from '#tools/lambda/context';
import { proxyEvent } from '#tools/lambda/events';

/**
 * What a function settles once, at cold start: its configuration and clients, the pieces its
 * descriptor calls for, and the checks that fail fast instead of deep inside a request.
 */

afterEach(() => {
  vi.unstubAllEnvs();
});

const problemOf = (text: string) => {
  const decoded = decodeCursor([ALL_PETS, PETS_BY_STATUS], text);
  return decoded.ok ? 'accepted' : decoded.problem;
};

describe('configuration', () => {
  it('names the variable of a table the configuration lacks', () => {
    expect(() => tableName({ tables: {} }, 'idempotency')).toThrow(
      new ConfigError('Environment variable IDEMPOTENCY_TABLE_NAME must be set'),
    );
    expect(tableName({ tables: { pets: 'PetStore-Pets' } }, 'pets')).toBe('PetStore-Pets');
    expect(new ConfigError('x').name).toBe('ConfigError');
  });

  it('names the variable of allowed origins that are not origins', () => {
    expect(() => readAllowedOrigins('PETSTORE_CORS_ORIGINS', 'app.example.com')).toThrow(
      new ConfigError(
        'PETSTORE_CORS_ORIGINS: "app.example.com" is not an origin such as https://app.example.com',
      ),
    );
  });

  it('builds a function from the environment, and fails its cold start without its table', () => {
    vi.stubEnv('PETS_TABLE_NAME', 'PetStore-Pets');
    vi.stubEnv('API_KEYS_TABLE_NAME', '');

    const handler = fromEnvironment(getPetFunction);

    expect(typeof handler).toBe('function');
    expect(() => fromEnvironment(authorizerFunction)).toThrow(
      new ConfigError('Environment variable API_KEYS_TABLE_NAME must be set'),
    );
  });

  it("gives a function's logger the level its configuration says, Powertools' INFO by default", () => {
    expect(createLogger({ logLevel: 'SILENT' }).getLevelName()).toBe('SILENT');
    expect(createLogger({ logLevel: 'ERROR' }).getLevelName()).toBe('ERROR');
    expect(createLogger({}).getLevelName()).toBe('INFO');
  });
});

describe('the DynamoDB client', () => {
  it('has the time budget of the timeout ladder: 3 attempts of 1 s, sockets kept alive', () => {
    expect(DYNAMODB_HTTP_OPTIONS).toEqual({
      requestTimeout: 1_000,
      connectionTimeout: 1_000,
      throwOnRequestTimeout: true,
      httpAgent: { keepAlive: true, maxSockets: 50 },
      httpsAgent: { keepAlive: true, maxSockets: 50 },
    });
    expect(timeBudget()).toEqual({ maxAttempts: 3, requestHandler: expect.any(NodeHttpHandler) });
  });

  it('goes to DynamoDB Local with its dummy region and credentials only when an endpoint is set', async () => {
    const local = createDynamoDbClient({ endpoint: 'http://127.0.0.1:8000' });
    const aws = createDynamoDbClient({});
    const plain = createLocalClient('http://127.0.0.1:8001', { maxAttempts: 1 });
    try {
      expect(await local.config.region()).toBe('local');
      expect(await local.config.credentials()).toMatchObject({
        accessKeyId: 'local',
        secretAccessKey: 'local',
      });
      expect((await local.config.endpoint?.())?.hostname).toBe('127.0.0.1');
      expect(await local.config.maxAttempts()).toBe(3);
      expect(aws.config.endpoint).toBeUndefined();
      expect(await plain.config.maxAttempts()).toBe(1);
      expect((await plain.config.endpoint?.())?.port).toBe(8001);
    } finally {
      for (const client of [local, aws, plain]) client.destroy();
    }
  });

  it("translates only the SDK's transient failures, naming the call", () => {
    const refused = Object.assign(new Error('connect'), { code: 'ECONNREFUSED' });
    const denied = Object.assign(new Error('denied'), { code: 'EACCES' });
    const numeric = Object.assign(new Error('odd'), { code: 7 });
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });

    expect((translateSdkError(throttled, 'Query') as Error).message).toBe(
      'DynamoDB Query failed: ThrottlingException',
    );
    expect((translateSdkError(refused, 'GetItem') as Error).message).toBe('DynamoDB GetItem failed: Error');
    expect(translateSdkError(denied, 'GetItem')).toBe(denied);
    expect(translateSdkError(numeric, 'GetItem')).toBe(numeric);
    expect(translateSdkError(null, 'GetItem')).toBeNull();
    expect(translateSdkError('text', 'GetItem')).toBe('text');
  });
});

describe('the authorizer', () => {
  it('refuses with the exact message API Gateway knows as a 401', () => {
    expect([new UnauthorizedError().name, new UnauthorizedError().message]).toEqual([
      'UnauthorizedError',
      'Unauthorized',
    ]);
  });

  it('fails on a method ARN without a stage, or not an ARN at all', () => {
    expect(() => stageArnOf('arn:aws:execute-api:eu-west-1:123456789012:abc123')).toThrow(
      'Unexpected methodArn: arn:aws:execute-api:eu-west-1:123456789012:abc123',
    );
    expect(() => stageArnOf('urn:aws:execute-api:x:1:abc/v1/GET/pets')).toThrow(/Unexpected methodArn/);
    expect(() => stageArnOf('/v1/GET/pets')).toThrow(/Unexpected methodArn/);
  });
});

describe('the pet service', () => {
  it('refuses a create by key when it was built without an idempotency store, before drawing an id', async () => {
    let drawn = 0;
    const service = new PetService({
      pets: { create: async () => undefined } as never,
      ids: { next: async () => ++drawn },
    });

    await expect(
      service.create({ name: 'Rex', categoryId: 1 }, { caller: 'key-1', key: 'k' }),
    ).rejects.toThrow('PetService was built without an IdempotencyStore: it cannot create pets by key');
    expect(drawn).toBe(0);
  });
});

describe('an operation', () => {
  it('lives in the module named after its id in kebab-case', () => {
    expect(moduleOf('listPets')).toBe('functions/list-pets.ts');
    expect(moduleOf('authorizer')).toBe('functions/authorizer.ts');
  });

  it('of a function that allows no origin sends no CORS header at all, not even Vary', async () => {
    const handler = getPetFunction.build({
      tables: { pets: 'PetStore-Pets' },
      dynamoDb: { endpoint: 'http://127.0.0.1:9' },
      logLevel: 'SILENT',
      metrics: false,
    });
    const event: APIGatewayProxyEvent = proxyEvent({
      method: 'GET',
      path: '/pets/abc',
      resource: '/pets/{petId}',
      pathParameters: { petId: 'abc' },
      headers: [['Origin', 'http://localhost:5173']],
      requestId: 'no-cors',
    });

    const response = await handler(event, lambdaContext('getPet'));

    expect(response.statusCode).toBe(400);
    expect(Object.keys(response.headers ?? {}).sort()).toEqual([
      'Cache-Control',
      'Content-Type',
      'Deprecation',
      'Link',
      'Request-Id',
      'Sunset',
      'X-Content-Type-Options',
    ]);
    expect(response.headers?.['Request-Id']).toBe('no-cors');
  });
});

describe('the cursor at its limits', () => {
  const forge = (first: number, payload: string) => {
    const body = Buffer.from(payload);
    const tag = createHmac('sha256', 'pet-store listPets cursor, version 1')
      .update(Buffer.from([first]))
      .update(body)
      .digest()
      .subarray(0, 8);
    return Buffer.concat([Buffer.from([first]), tag, body]).toString('base64url');
  };

  it('reads a text of exactly 128 characters, and refuses 129 unread', () => {
    expect(problemOf('w'.repeat(128))).toBe(CURSOR_PROBLEM.notIssued);
    expect(problemOf('w'.repeat(129))).toBe(CURSOR_PROBLEM.tooLong);
  });

  it('takes a first byte below 0x20 for another version (a kind of walk it does not know), and 0x20 or above for no cursor at all', () => {
    expect(problemOf(forge(0x1f, '{"p":[7]}'))).toBe(CURSOR_PROBLEM.version);
    expect(problemOf(forge(0x20, '{"p":[7]}'))).toBe(CURSOR_PROBLEM.notIssued);
  });
});

describe('the DynamoDB time budget', () => {
  it('ends a call whose every attempt times out after 3 × 1 s and 150 ms of back-off', () => {
    expect(DYNAMODB_CALL_BUDGET_MS).toBe(3_150);
  });
});
