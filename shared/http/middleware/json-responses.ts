import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorBody } from '#shared/http/error-body';
import { toHttpError } from '#shared/http/error-mapper';
import type { HttpResult } from '#shared/http/responses';
import { logger } from '#shared/observability/logger';
import { countError } from '#shared/observability/metrics';

const JSON_CONTENT_TYPE = { 'Content-Type': 'application/json' } as const;

const serialise = (
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { ...JSON_CONTENT_TYPE, ...headers },
  body: JSON.stringify(body),
});

export interface JsonResponsesOptions {
  /** Headers on every response of the operation, success or error (e.g. deprecation headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The outermost middleware: serialises the handler's HttpResult as JSON, and turns any error
 * into the Error object `{ code, message, status }`. A 5xx is logged with its cause; the client
 * sees only the generic message.
 */
export const jsonResponses = ({
  headers = {},
}: JsonResponsesOptions = {}): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  after: (request) => {
    const result = request.response as unknown as HttpResult;
    request.response = serialise(result.status, result.body, { ...headers, ...result.headers });
  },
  onError: (request) => {
    const error = toHttpError(request.error);
    const requestId = request.event?.requestContext?.requestId;
    if (error.status >= 500) {
      logger.error('Request failed', { code: error.code, error: error.cause ?? error });
    } else {
      logger.info('Request rejected', { code: error.code, status: error.status });
    }
    countError(error.code);
    const body = errorBody(error.code, error.message, {
      ...(error.details ? { details: [...error.details] } : {}),
      ...(requestId ? { requestId } : {}),
    });
    request.response = serialise(error.status, body, { ...headers, ...error.headers });
  },
});
