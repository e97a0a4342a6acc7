import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorBody } from '#shared/http/error-body';
import { toHttpError } from '#shared/http/error-mapper';
import { requestIdOf } from '#shared/http/request-id';
import { jsonResponse, type ResponseHeaders } from '#shared/http/responses';
import { retryHeaders } from '#shared/http/retry';
import type { Logger } from '#shared/observability/logger';
import { inSources } from '#shared/observability/source-stack';

/**
 * The key of the Error code on the line each error answer logs: the stack's metric filters count
 * errors by it (infra/constructs/monitoring.ts), so no function publishes a metric of its own.
 */
export const ERROR_CODE_LOG_KEY = 'code';

export interface ErrorResponsesOptions {
  readonly logger: Logger;
  /** Headers on every response of the operation, errors included (e.g. deprecation headers). */
  readonly headers?: ResponseHeaders;
}

/**
 * Turns any error into the Error object `{ code, message, status }` (toHttpError decides which).
 * A 5xx is logged with its cause, its stack in the sources (`inSources`); the client sees only
 * the generic message. A 429 or 503 says
 * when to retry. Every error logs one line with its code (ERROR_CODE_LOG_KEY): a 5xx at ERROR,
 * any other at INFO.
 */
export const errorResponses = ({
  headers = {},
  logger,
}: ErrorResponsesOptions): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: (request) => {
    const error = toHttpError(request.error);
    const requestId = requestIdOf(request.event);
    if (error.status >= 500) {
      const cause = inSources(error.cause ?? error);
      logger.error('Request failed', { [ERROR_CODE_LOG_KEY]: error.code, error: cause });
    } else {
      logger.info('Request rejected', { [ERROR_CODE_LOG_KEY]: error.code, status: error.status });
    }
    const body = errorBody(error.code, error.message, {
      ...(error.details ? { details: [...error.details] } : {}),
      ...(requestId ? { requestId } : {}),
    });
    request.response = jsonResponse(error.status, body, headers, retryHeaders(error.code), error.headers);
  },
});
