import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorBody } from '#shared/http/error-body';
import { toHttpError } from '#shared/http/error-mapper';
import { requestIdOf } from '#shared/http/request-id';
import { jsonResponse, type ResponseHeaders } from '#shared/http/responses';
import { retryHeaders } from '#shared/http/retry';
import type { Logger } from '#shared/observability/logger';
import { inSources } from '#shared/observability/source-stack';

/** The key of the Error code on each error answer's log line: the stack's metric filters count by it. */
export const ERROR_CODE_LOG_KEY = 'code';

export interface ErrorResponsesOptions {
  readonly logger: Logger;
  /** Headers on every response of the operation (deprecation headers). */
  readonly headers?: ResponseHeaders;
}

/** Any error as the Error object, logged with its code: a 5xx at ERROR with its cause, others at INFO. */
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
