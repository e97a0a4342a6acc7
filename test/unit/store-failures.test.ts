import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createPetEndpoint } from '#functions/create-pet';
import { getPetFunction } from '#functions/get-pet';
import { listPetsFunction } from '#functions/list-pets';
import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  StoreUnavailableError,
} from '#shared/domain/errors';
import { PetService } from '#shared/domain/pet-service';
import { toHttpError } from '#shared/http/error-mapper';
import { retryHeaders } from '#shared/http/retry';
import { silent } from '../support/observability';

/**
 * What a real DynamoDB Local cannot do: throttle, time out, or fail in an unexpected way. The
 * table is replaced here, and only here, by one that fails on purpose: a stand-in has only the
 * methods its function declares.
 */

const failingWith = (error: unknown) => async (): Promise<never> => {
  throw error;
};

const event = (overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent =>
  ({
    httpMethod: 'GET',
    path: '/pets',
    resource: '/pets',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { extendedRequestId: 'req-1' },
    ...overrides,
  }) as APIGatewayProxyEvent;

const context = { awsRequestId: 'lambda-1', functionName: 'test' } as Context;

const bodyOf = (result: APIGatewayProxyResult) => JSON.parse(result.body) as Record<string, unknown>;

describe('errors the store raises', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the store is throttled', async () => {
    const pets = {
      page: failingWith(new StoreUnavailableError('DynamoDB Query failed: ThrottlingException')),
    };

    const result = await listPetsFunction.handler({ pets, ...silent() })(event(), context);

    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Retry-After']).toBe('1');
    expect(bodyOf(result)).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The service is temporarily unavailable; retry shortly',
      status: 503,
      requestId: 'req-1',
    });
  });

  it('answers 500 INTERNAL_ERROR without leaking the message or stack of an unexpected error', async () => {
    const secret = new Error('ValidationException: table arn:aws:dynamodb:eu-west-1:123:table/Pets-XYZ');
    const pets = { get: failingWith(secret) };

    const result = await getPetFunction.handler({ pets, ...silent() })(
      event({ pathParameters: { petId: '1' }, resource: '/pets/{petId}' }),
      context,
    );

    expect(result.statusCode).toBe(500);
    expect(bodyOf(result)).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'An internal error occurred',
      status: 500,
      requestId: 'req-1',
    });
    expect(result.body).not.toContain('arn:aws');
    expect(result.body).not.toContain('at ');
  });

  it('keeps the deprecation headers on errors of the deprecated operation', async () => {
    const pets = { get: failingWith(new Error('boom')) };

    const result = await getPetFunction.handler({ pets, ...silent() })(
      event({ pathParameters: { petId: '1' } }),
      context,
    );

    expect(result.headers).toMatchObject({ Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' });
  });

  it('answers 503 with Retry-After 500 ms before the Lambda timeout, not when Lambda kills it', async () => {
    const slow = { page: () => new Promise<never>(() => undefined) };
    const nearlyOutOfTime = { ...context, getRemainingTimeInMillis: () => 800 } as Context;
    const started = performance.now();

    const result = await listPetsFunction.handler({ pets: slow, ...silent() })(event(), nearlyOutOfTime);

    // 800 ms left, a 500 ms margin: the answer comes after about 300 ms, not before (the margin
    // is not the whole budget) and before the 800 ms the Lambda had.
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(800);
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Retry-After']).toBe('1');
    expect(bodyOf(result)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});

describe('a function near its Lambda timeout', () => {
  it('keeps the whole 500 ms margin: with 600 ms left, it answers 503 after about 100 ms', async () => {
    const slow = { page: () => new Promise<never>(() => undefined) };
    const nearlyOutOfTime = { ...context, getRemainingTimeInMillis: () => 600 } as Context;
    const started = performance.now();

    const result = await listPetsFunction.handler({ pets: slow, ...silent() })(event(), nearlyOutOfTime);

    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(90);
    expect(elapsed).toBeLessThan(450);
    expect(result.statusCode).toBe(503);
  });
});

describe('a create that cannot get an id', () => {
  it('answers 500, not a half-created pet, when the id sequence fails', async () => {
    const stored: unknown[] = [];
    const pets = new PetService({
      pets: { create: async (pet) => void stored.push(pet) },
      ids: {
        next: async () => {
          throw new Error('sequence broken');
        },
      },
    });

    const result = await createPetEndpoint({ pets, ...silent() })(
      event({
        httpMethod: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"name":"Rex","categoryId":1}',
      }),
      context,
    );

    expect(result.statusCode).toBe(500);
    expect(stored).toEqual([]);
  });
});

describe('idempotency errors', () => {
  it('maps a key still in use to 409 IDEMPOTENCY_KEY_IN_USE, sent with Retry-After', () => {
    const error = toHttpError(new IdempotencyKeyInUseError());

    expect([error.status, error.code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
    expect(retryHeaders(error.code)).toEqual({ 'Retry-After': '1' });
  });

  it('maps a key reused with another body to 422 IDEMPOTENCY_KEY_REUSED, not to be retried as is', () => {
    const error = toHttpError(new IdempotencyKeyReusedError());

    expect([error.status, error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(retryHeaders(error.code)).toEqual({});
  });
});
