import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  PetNotFoundError,
  StoreUnavailableError,
} from '#shared/domain/errors';
import { invalidJson, toHttpError } from '#shared/http/error-mapper';
import { HttpError } from '#shared/http/http-error';
import { parseJson } from '#shared/http/middleware/json-body';
import { retryHeaders } from '#shared/http/retry';
import { lambdaContext } from '#tools/lambda/context';

/** What a dependency really throws, caught: the mapper must know it by type, not by its text. */
const thrownBy = async (run: () => unknown): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
};

const context = (remainingMs: number) => lambdaContext('test', { timeoutMs: remainingMs });

describe('toHttpError', () => {
  it('passes an HttpError through as it is', () => {
    const error = new HttpError('VALIDATION_FAILED', 'bad', {
      details: [{ field: 'body.name', message: 'x' }],
    });

    expect(toHttpError(error)).toBe(error);
  });

  it('maps PetNotFoundError to 404 NOT_FOUND with its message', () => {
    const mapped = toHttpError(new PetNotFoundError(42));

    expect([mapped.status, mapped.code, mapped.message]).toEqual([404, 'NOT_FOUND', 'Pet 42 does not exist']);
  });

  it('maps StoreUnavailableError to 503 SERVICE_UNAVAILABLE with a generic message, keeping the cause', () => {
    const cause = new StoreUnavailableError('DynamoDB Query failed: ThrottlingException');

    const mapped = toHttpError(cause);

    expect([mapped.status, mapped.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(mapped.message).toBe('The service is temporarily unavailable; retry shortly');
    expect(mapped.cause).toBe(cause);
  });

  it("maps what middy's JSON body parser throws on malformed JSON, as the body reader passes it on, to 400 INVALID_JSON", async () => {
    const parser = parseJson();
    const failure = await thrownBy(() =>
      parser.before?.({
        event: { body: '{"name": "Rex",', headers: { 'content-type': 'application/json' } },
      } as never),
    );

    const mapped = toHttpError(failure);

    expect([mapped.status, mapped.code, mapped.message]).toEqual([
      400,
      'INVALID_JSON',
      'Request body is not valid JSON',
    ]);
  });

  it("maps middy's own time-out, raised before the Lambda timeout, to 503 SERVICE_UNAVAILABLE", async () => {
    const handler = middy<APIGatewayProxyEvent, unknown>({ timeoutEarlyInMillis: 50 }).handler(
      () => new Promise(() => undefined),
    );
    const failure = await thrownBy(() => handler({} as APIGatewayProxyEvent, context(60)));

    expect(toHttpError(failure).code).toBe('SERVICE_UNAVAILABLE');
  });

  it.each([
    ['Unsupported Media Type'],
    ['Invalid or malformed JSON was provided'],
    ['[AbortError]: The operation was aborted.'],
  ])('does not recognise an error by its message: a plain Error saying "%s" is a 500', (message) => {
    const mapped = toHttpError(new Error(message));

    expect([mapped.status, mapped.code, mapped.message]).toEqual([
      500,
      'INTERNAL_ERROR',
      'An internal error occurred',
    ]);
  });

  it.each([['a string'], [undefined], [{ code: 'NOT_FOUND' }], [null]])(
    'maps anything else thrown (%j) to a generic 500 that keeps it as the cause',
    (thrown) => {
      const mapped = toHttpError(thrown);

      expect([mapped.status, mapped.code]).toEqual([500, 'INTERNAL_ERROR']);
      expect(mapped.cause).toBe(thrown);
    },
  );
});

describe('retryHeaders', () => {
  it.each([['TOO_MANY_REQUESTS'], ['SERVICE_UNAVAILABLE']] as const)(
    'tells a client to retry %s after 1 s',
    (code) => {
      expect(retryHeaders(code)).toEqual({ 'Retry-After': '1' });
    },
  );

  it.each([['VALIDATION_FAILED'], ['UNAUTHORIZED'], ['NOT_FOUND'], ['INTERNAL_ERROR']] as const)(
    'sends no Retry-After with %s',
    (code) => {
      expect(retryHeaders(code)).toEqual({});
    },
  );
});

describe('the error mapper', () => {
  it('keeps the cause of every error it replaces, for the log', () => {
    const inUse = new IdempotencyKeyInUseError();
    const reused = new IdempotencyKeyReusedError();
    const unavailable = new StoreUnavailableError('DynamoDB Query failed: ThrottlingException');
    const unexpected = new TypeError('x is undefined');
    const parserFailure = new SyntaxError('Unexpected token');

    expect(toHttpError(inUse).cause).toBe(inUse);
    expect(toHttpError(reused).cause).toBe(reused);
    expect(toHttpError(unavailable).cause).toBe(unavailable);
    expect(toHttpError(unexpected).cause).toBe(unexpected);
    expect(invalidJson(parserFailure).cause).toBe(parserFailure);
  });

  it('answers a value that is not an Error, thrown by anything, with 500 and keeps it as the cause', () => {
    const mapped = toHttpError('a string');

    expect([mapped.code, mapped.message, mapped.cause]).toEqual([
      'INTERNAL_ERROR',
      'An internal error occurred',
      'a string',
    ]);
  });
});
