import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { requestDeadline, withinDeadline } from '#shared/deadline';
import { deprecationHeaders } from '#shared/http/deprecation';
import { withAnswerHeaders } from '#shared/http/middleware/answer-headers';
import { withCors } from '#shared/http/middleware/cors-headers';
import { errorResponses } from '#shared/http/middleware/error-responses';
import type { JsonBodyReader } from '#shared/http/middleware/json-body';
import { singleValuedHeaders } from '#shared/http/middleware/single-valued-headers';
import { validateRequest } from '#shared/http/middleware/validate-request';
import { requestIdOf } from '#shared/http/request-id';
import { jsonResponse } from '#shared/http/responses';
import type { ProxyHandler } from '#shared/lambda';
import { withInvocationLogger } from '#shared/observability/logger';
import type { Observability } from '#shared/observability/observability';
import type { Operation, RequestInput, ResultOf } from '#shared/operations/operation';

/** What an operation's handler does: from the validated request to one of its responses. */
export type EndpointHandler<O extends Operation> = (
  input: RequestInput<O>,
  event: APIGatewayProxyEvent,
) => Promise<ResultOf<O>>;

/** What every operation's function needs. */
export interface FunctionDependencies extends Observability {
  /** The web origins whose pages may read its answers (CORS). @default none */
  readonly corsOrigins?: AllowedOrigins;
}

/**
 * How a function reads its request body: `jsonBody()` (middleware/json-body.ts), the only thing
 * of this type. Passed in by the handler of an operation that reads one, so that the functions of
 * the others do not carry a body parser they never run (each KB of a bundle is paid at every cold
 * start).
 */
export type BodyReader = JsonBodyReader;

/** The body reader, required exactly when the operation's request has a body. */
export type BodyOptions<O extends Operation> = O['request'] extends { readonly body: object }
  ? [options: { readonly body: BodyReader }]
  : [];

/** Stop this long before the Lambda timeout, so the client gets a 503, not a gateway error. */
export const TIMEOUT_MARGIN_MS = 500;

/** The input `validateRequest` parsed with the operation's own request schema. */
const inputOf = <O extends Operation>(event: APIGatewayProxyEvent): RequestInput<O> =>
  (event as APIGatewayProxyEvent & { input: RequestInput<O> }).input;

/** The request headers an operation reads, by name: each must come once. */
const headerNamesOf = (operation: Operation): string[] => {
  const schema = operation.request.headers as { entries?: Record<string, unknown> } | undefined;
  return Object.keys(schema?.entries ?? {});
};

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
 * The Lambda handler of an operation: the middy stack its descriptor calls for, around a handler
 * that only speaks the domain. Order: metrics → error responses → repeated headers refused →
 * header normalisation → body checks and parsing (the handler's body reader, when the operation
 * reads a body) → validation
 * (only valid requests reach the domain, an idempotent create's record included) → handler,
 * whose result is sent as JSON with the operation's fixed headers. Around it, on every answer
 * (early ones and replays included), the CORS headers (middleware/cors-headers.ts) and the
 * `Request-Id` and caller's `RateLimit-Policy` (middleware/answer-headers.ts); the request's
 * deadline, which every DynamoDB call of the request shares; and the invocation's own logger,
 * whose lines carry the request id.
 */
export const httpEndpoint = <O extends Operation>(
  operation: O,
  dependencies: FunctionDependencies,
  handle: EndpointHandler<NoInfer<O>>,
  ...[options]: BodyOptions<NoInfer<O>>
): ProxyHandler => {
  const { logger, metrics } = dependencies;
  const body = (options as { readonly body?: BodyReader } | undefined)?.body;
  if (operation.request.body && !body) {
    throw new Error(`${operation.operationId} reads a request body: its handler must pass a body reader`);
  }
  const headers = operation.deprecation ? deprecationHeaders(operation.deprecation) : {};
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>({
    timeoutEarlyInMillis: TIMEOUT_MARGIN_MS,
  })
    .use(metrics.middleware())
    .use(errorResponses({ headers, logger, metrics }))
    .use(singleValuedHeaders(headerNamesOf(operation)))
    .use(httpHeaderNormalizer())
    .use(operation.request.body && body ? [...body] : [])
    .use(validateRequest(operation.request))
    .handler(async (event) => {
      const result = await handle(inputOf<O>(event), event);
      return jsonResponse(result.status, result.body, headers, result.headers);
    });
  return withInvocationLogger(
    logger,
    requestIdOf,
    withinDeadline(deadlineOf, withCors(dependencies.corsOrigins ?? [], withAnswerHeaders(handler))),
  );
};
