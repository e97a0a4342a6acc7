import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type AllowedOrigins, withCors } from '#shared/http/cors';
import { deprecationHeaders } from '#shared/http/deprecation';
import { errorResponses } from '#shared/http/middleware/error-responses';
import { jsonBody } from '#shared/http/middleware/json-body';
import { singleValuedHeaders } from '#shared/http/middleware/single-valued-headers';
import { validateRequest } from '#shared/http/middleware/validate-request';
import { jsonResponse } from '#shared/http/responses';
import type { ProxyHandler } from '#shared/lambda';
import { invocationLogging } from '#shared/observability/logger';
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

/** What every operation's function needs, and what some need on top (by their descriptor). */
export interface EndpointDependencies extends FunctionDependencies {
  /**
   * The middleware of an operation whose descriptor has `idempotency` (required then): built by
   * that operation's handler, so that no other function's bundle carries it.
   */
  readonly idempotency?: middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;
}

/** Stop this long before the Lambda timeout, so the client gets a 503, not a gateway error. */
export const TIMEOUT_MARGIN_MS = 500;

/** The input `validateRequest` parsed with the operation's own request schema. */
const inputOf = <O extends Operation>(event: APIGatewayProxyEvent): RequestInput<O> =>
  (event as APIGatewayProxyEvent & { input: RequestInput<O> }).input;

/** The idempotency middleware an operation's descriptor calls for, if any; fails fast without it. */
const idempotencyOf = (operation: Operation, { idempotency }: EndpointDependencies) => {
  if (!operation.idempotency) return [];
  if (!idempotency)
    throw new Error(`${operation.operationId} is idempotent: it needs its idempotency middleware`);
  return idempotency;
};

/** The request headers an operation reads, by name: each must come once. */
const headerNamesOf = (operation: Operation): string[] => {
  const schema = operation.request.headers as { shape?: Record<string, unknown> } | undefined;
  return Object.keys(schema?.shape ?? {});
};

/**
 * The Lambda handler of an operation: the middy stack its descriptor calls for, around a handler
 * that only speaks the domain. Order: the invocation's logger (its lines carry the request id) and metrics → error responses → repeated
 * headers refused → header normalisation → body checks and parsing (when the operation reads a
 * body) → validation → idempotency (when the operation has it: only valid requests are recorded,
 * and the handler's answer is what is kept) → handler, whose result is sent as JSON with the
 * operation's fixed headers. Around all of it, the CORS headers, on every answer (see cors.ts): a replayed answer leaves
 * middy early and skips its `after` steps, so they cannot be one of them.
 */
export const httpEndpoint = <O extends Operation>(
  operation: O,
  dependencies: EndpointDependencies,
  handle: EndpointHandler<NoInfer<O>>,
): ProxyHandler => {
  const { logger, metrics } = dependencies;
  const headers = operation.deprecation ? deprecationHeaders(operation.deprecation) : {};
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>({
    timeoutEarlyInMillis: TIMEOUT_MARGIN_MS,
  })
    .use(invocationLogging(logger))
    .use(metrics.middleware())
    .use(errorResponses({ headers, logger, metrics }))
    .use(singleValuedHeaders(headerNamesOf(operation)))
    .use(httpHeaderNormalizer())
    .use(operation.request.body ? jsonBody() : [])
    .use(validateRequest(operation.request))
    .use(idempotencyOf(operation, dependencies))
    .handler(async (event) => {
      const result = await handle(inputOf<O>(event), event);
      return jsonResponse(result.status, result.body, headers, result.headers);
    });
  return withCors(dependencies.corsOrigins ?? [], handler);
};
