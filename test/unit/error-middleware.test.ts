import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '#shared/http/http-error';
import { errorResponses } from '#shared/http/middleware/error-responses';
import { createLogger } from '#shared/observability/logger';
import { lambdaContext } from '#tools/lambda/context';

/** What the error middleware logs and answers: each error one line with its code, which the stack's log filters count. */

afterEach(() => vi.restoreAllMocks());

describe('the error middleware', () => {
  const run = (error: Error, event?: Partial<APIGatewayProxyEvent>) => {
    const logger = createLogger({ logLevel: 'SILENT' });
    const logged = { error: vi.spyOn(logger, 'error'), info: vi.spyOn(logger, 'info') };
    const middleware = errorResponses({ logger, headers: { Deprecation: '@1' } });
    // No event at all when middy failed before it had one.
    const request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult> = {
      event: event as APIGatewayProxyEvent,
      context: lambdaContext('test'),
      error,
      response: null,
      internal: {},
    };
    void middleware.onError?.(request);
    return { response: request.response as APIGatewayProxyResult, logged };
  };

  it('logs a 5xx at ERROR with its cause, and the client sees only the generic message', () => {
    const cause = new Error('table pets is missing');

    const { response, logged } = run(cause, { requestContext: { extendedRequestId: 'r-1' } } as never);

    expect(logged.error).toHaveBeenCalledOnce();
    expect(logged.error).toHaveBeenCalledWith('Request failed', { code: 'INTERNAL_ERROR', error: cause });
    expect(logged.info).not.toHaveBeenCalled();
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
    const { logged, response } = run(new HttpError('NOT_FOUND', 'Pet 1 does not exist'));

    expect(logged.info).toHaveBeenCalledOnce();
    expect(logged.info).toHaveBeenCalledWith('Request rejected', { code: 'NOT_FOUND', status: 404 });
    expect(logged.error).not.toHaveBeenCalled();
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
