import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  StoreUnavailableError,
} from '#shared/domain/errors';
import { errorBody, truncate } from '#shared/http/error-body';
import { invalidJson, toHttpError } from '#shared/http/error-mapper';
import { HttpError } from '#shared/http/http-error';
import { errorResponses } from '#shared/http/middleware/error-responses';
import { createLogger } from '#shared/observability/logger';
import { NO_METRICS } from '#shared/observability/metrics';

/**
 * The Error object at its limits, the causes the mapper keeps for the log, and what the error
 * middleware logs, counts and answers.
 */

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

afterEach(() => vi.restoreAllMocks());

describe('the Error object at its limits', () => {
  it('keeps a name of exactly 64 characters whole, and cuts one of 65', () => {
    expect(truncate('f'.repeat(64), 64)).toBe('f'.repeat(64));
    expect(truncate('f'.repeat(65), 64)).toBe(`${'f'.repeat(63)}…`);
  });

  it('keeps a body of exactly 4 KiB whole', () => {
    // 51 bytes around the message; a control character is six bytes once JSON escapes it.
    const message = `${'\u0001'.repeat(674)}x`;

    const body = errorBody('INTERNAL_ERROR', message);

    expect(bytes(body)).toBe(4_096);
    expect(body.message).toBe(message);
  });

  it('halves the message of a body over 4 KiB before it drops the last detail', () => {
    const body = errorBody('VALIDATION_FAILED', '\u0001'.repeat(1_000), {
      details: [{ field: 'body.name', message: 'is required' }],
    });

    expect(body.details).toEqual([{ field: 'body.name', message: 'is required' }]);
    expect(Array.from(body.message)).toHaveLength(500);
    expect(bytes(body)).toBeLessThanOrEqual(4_096);
  });

  it('cuts a request id to 128 characters', () => {
    expect(errorBody('NOT_FOUND', 'x', { requestId: 'r'.repeat(200) }).requestId).toBe(`${'r'.repeat(127)}…`);
  });
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

describe('the error middleware', () => {
  const run = (error: unknown, event?: Partial<APIGatewayProxyEvent>) => {
    const logger = createLogger({ logLevel: 'SILENT' });
    const logged = { error: vi.spyOn(logger, 'error'), info: vi.spyOn(logger, 'info') };
    const counted: string[] = [];
    const middleware = errorResponses({
      logger,
      metrics: { ...NO_METRICS, countError: (code) => counted.push(code) },
      headers: { Deprecation: '@1' },
    });
    const request = { event, error, response: undefined } as unknown as middy.Request<
      APIGatewayProxyEvent,
      APIGatewayProxyResult
    >;
    void middleware.onError?.(request);
    return { response: request.response as APIGatewayProxyResult, logged, counted };
  };

  it('logs a 5xx at ERROR with its cause, and the client sees only the generic message', () => {
    const cause = new Error('table pets is missing');

    const { response, logged, counted } = run(cause, { requestContext: { requestId: 'r-1' } } as never);

    expect(logged.error).toHaveBeenCalledWith('Request failed', { code: 'INTERNAL_ERROR', error: cause });
    expect(logged.info).not.toHaveBeenCalled();
    expect(counted).toEqual(['INTERNAL_ERROR']);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'An internal error occurred',
      status: 500,
      requestId: 'r-1',
    });
  });

  it('logs a 5xx without a cause as itself', () => {
    const error = new HttpError('SERVICE_UNAVAILABLE', 'later');

    const { logged, response } = run(error, {});

    expect(logged.error).toHaveBeenCalledWith('Request failed', { code: 'SERVICE_UNAVAILABLE', error });
    expect(response.headers).toMatchObject({ 'Retry-After': '1', Deprecation: '@1' });
  });

  it('logs a 4xx at INFO with its code and status only', () => {
    const { logged, counted, response } = run(new HttpError('NOT_FOUND', 'Pet 1 does not exist'));

    expect(logged.info).toHaveBeenCalledWith('Request rejected', { code: 'NOT_FOUND', status: 404 });
    expect(logged.error).not.toHaveBeenCalled();
    expect(counted).toEqual(['NOT_FOUND']);
    // No event (middy failed before it had one): no request id, and no failure of its own.
    expect(JSON.parse(response.body)).toEqual({
      code: 'NOT_FOUND',
      message: 'Pet 1 does not exist',
      status: 404,
    });
  });

  it("sends an error's own headers, after the operation's", () => {
    const { response } = run(
      new HttpError('METHOD_NOT_ALLOWED', 'no', { headers: { Allow: 'GET', Deprecation: '@2' } }),
    );

    expect(response.headers).toEqual({
      'Content-Type': 'application/json',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      Deprecation: '@2',
      Allow: 'GET',
    });
  });
});
