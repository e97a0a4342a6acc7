import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorBody } from '#shared/http/error-body';
import { toHttpError } from '#shared/http/error-mapper';
import { requestIdOf } from '#shared/http/request-id';
import { jsonResponse, type ResponseHeaders } from '#shared/http/responses';
import { retryHeaders } from '#shared/http/retry';
import type { Observability } from '#shared/observability/observability';

export interface ErrorResponsesOptions extends Observability {
  /** Headers on every response of the operation, errors included (e.g. deprecation headers). */
  readonly headers?: ResponseHeaders;
}

/**
 * Turns any error into the Error object `{ code, message, status }` (toHttpError decides which).
 * A 5xx is logged with its cause; the client sees only the generic message. A 429 or 503 says
 * when to retry. Every error is counted by code.
 */
export const errorResponses = ({
  headers = {},
  logger,
  metrics,
}: ErrorResponsesOptions): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: (request) => {
    const error = toHttpError(request.error);
    const requestId = requestIdOf(request.event);
    if (error.status >= 500) {
      logger.error('Request failed', { code: error.code, error: error.cause ?? error });
    } else {
      logger.info('Request rejected', { code: error.code, status: error.status });
    }
    metrics.countError(error.code);
    const body = errorBody(error.code, error.message, {
      ...(error.details ? { details: [...error.details] } : {}),
      ...(requestId ? { requestId } : {}),
    });
    request.response = jsonResponse(error.status, body, headers, retryHeaders(error.code), error.headers);
  },
});
