import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { requestDeadline, withinDeadline } from '#shared/deadline';
import { callerLogKeys } from '#shared/http/caller';
import { deprecationHeaders } from '#shared/http/deprecation';
import { corsExposedHeaders, exposing } from '#shared/http/gateway-behaviour';
import { withAnswerHeaders } from '#shared/http/middleware/answer-headers';
import { withCors } from '#shared/http/middleware/cors-headers';
import { errorResponses } from '#shared/http/middleware/error-responses';
import { singleValuedHeaders } from '#shared/http/middleware/single-valued-headers';
import { requestReader } from '#shared/http/middleware/validate-request';
import { requestIdOf } from '#shared/http/request-id';
import { jsonResponse } from '#shared/http/responses';
import type { ProxyHandler } from '#shared/lambda';
import { invocationLogging, type Logger, REQUEST_ID_LOG_KEY } from '#shared/observability/logger';
import {
  type Operation,
  type RequestInput,
  type ResultOf,
  requestHeaderNames,
} from '#shared/operations/operation';

export type EndpointHandler<O extends Operation> = (
  input: RequestInput<O>,
  event: APIGatewayProxyEvent,
) => Promise<ResultOf<O>>;

export interface FunctionDependencies {
  readonly logger: Logger;
  /** @default none */
  readonly corsOrigins?: AllowedOrigins;
}

type OperationWithoutBody = Operation & { readonly request: { readonly body?: undefined } };

/** Stop this long before the Lambda timeout, so the client gets a 503, not a gateway error. */
export const TIMEOUT_MARGIN_MS = 500;

/** The request's deadline (shared/deadline.ts), never later than middy's own answer before the Lambda timeout. */
const deadlineOf = (event: APIGatewayProxyEvent, context: Context) =>
  requestDeadline({
    receivedAt: event.requestContext?.requestTimeEpoch,
    remainingMs: context.getRemainingTimeInMillis
      ? context.getRemainingTimeInMillis() - TIMEOUT_MARGIN_MS
      : Number.POSITIVE_INFINITY,
  });

/** On every line a request causes: its id, and the key that called and its scopes. */
const logKeysOf = (event: APIGatewayProxyEvent) => ({
  [REQUEST_ID_LOG_KEY]: requestIdOf(event),
  ...callerLogKeys(event),
});

/** The Lambda handler of an operation that reads no body (one that does: `jsonEndpoint`). */
export const httpEndpoint = <O extends OperationWithoutBody>(
  operation: O,
  dependencies: FunctionDependencies,
  handle: EndpointHandler<NoInfer<O>>,
): ProxyHandler => endpointWith([], operation, dependencies, handle);

/** What `httpEndpoint` and `jsonEndpoint` share: only valid requests reach the handler. */
export const endpointWith = <O extends Operation>(
  bodyReader: readonly middy.MiddlewareObj<APIGatewayProxyEvent>[],
  operation: O,
  dependencies: FunctionDependencies,
  handle: EndpointHandler<O>,
): ProxyHandler => {
  const { logger } = dependencies;
  const headers = operation.deprecation ? deprecationHeaders(operation.deprecation) : {};
  const readRequest = requestReader<RequestInput<O>>(operation.request);
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>({
    timeoutEarlyInMillis: TIMEOUT_MARGIN_MS,
  })
    .use(invocationLogging(logger, logKeysOf))
    .use(errorResponses({ headers, logger }))
    .use(singleValuedHeaders(requestHeaderNames(operation)))
    .use(httpHeaderNormalizer())
    .use([...bodyReader])
    .handler(async (event) => {
      const result = await handle(readRequest(event), event);
      return jsonResponse(result.status, result.body, headers, result.headers);
    });
  const cors = exposing(corsExposedHeaders([operation]));
  return withinDeadline(
    deadlineOf,
    withCors(dependencies.corsOrigins ?? [], cors, withAnswerHeaders(handler)),
  );
};
