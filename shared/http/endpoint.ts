import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { requestDeadline, withinDeadline } from '#shared/deadline';
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
import { invocationLogging, type Logger } from '#shared/observability/logger';
import {
  type Operation,
  type RequestInput,
  type ResultOf,
  requestHeaderNames,
} from '#shared/operations/operation';

/** What an operation's handler does: from the validated request to one of its responses. */
export type EndpointHandler<O extends Operation> = (
  input: RequestInput<O>,
  event: APIGatewayProxyEvent,
) => Promise<ResultOf<O>>;

/** What every operation's function needs. */
export interface FunctionDependencies {
  /** Powertools' logger of the function. */
  readonly logger: Logger;
  /** The web origins whose pages may read its answers (CORS). @default none */
  readonly corsOrigins?: AllowedOrigins;
}

/** An operation whose request has no body: what `httpEndpoint` serves. */
type OperationWithoutBody = Operation & { readonly request: { readonly body?: undefined } };

/** Stop this long before the Lambda timeout, so the client gets a 503, not a gateway error. */
export const TIMEOUT_MARGIN_MS = 500;

/**
 * The request's deadline (shared/deadline.ts): its budget from when API Gateway received it, and
 * never later than middy's own answer before the Lambda timeout (like middy, it does without a
 * context that cannot tell the time left: tests, containers).
 */
const deadlineOf = (event: APIGatewayProxyEvent, context: Context) =>
  requestDeadline({
    receivedAt: event.requestContext?.requestTimeEpoch,
    remainingMs: context.getRemainingTimeInMillis
      ? context.getRemainingTimeInMillis() - TIMEOUT_MARGIN_MS
      : Number.POSITIVE_INFINITY,
  });

/**
 * The Lambda handler of an operation that reads no body. One that reads a JSON body is served by
 * `jsonEndpoint` (middleware/json-body.ts) instead: the types take each operation by one of the
 * two only.
 */
export const httpEndpoint = <O extends OperationWithoutBody>(
  operation: O,
  dependencies: FunctionDependencies,
  handle: EndpointHandler<NoInfer<O>>,
): ProxyHandler => endpointWith([], operation, dependencies, handle);

/**
 * The Lambda handler of an operation, its body read by `bodyReader`: what `httpEndpoint` and
 * `jsonEndpoint` share, for them alone to call. The middy stack the descriptor calls for, around a
 * handler that only speaks the domain. Order: the invocation's log keys (Powertools) → error
 * responses → repeated headers refused → header normalisation → the body reader's checks and
 * parsing → handler, given the request validated by its contract's schemas as an argument (only
 * valid requests reach the domain, an idempotent create's record included), whose result is sent as JSON with the operation's fixed headers. Around it, on every answer
 * (early ones and replays included), the CORS headers (middleware/cors-headers.ts) and the
 * `Request-Id` and caller's `RateLimit-Policy` (middleware/answer-headers.ts); and the request's
 * deadline, which every DynamoDB call of the request shares.
 */
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
    .use(invocationLogging(logger, requestIdOf))
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
