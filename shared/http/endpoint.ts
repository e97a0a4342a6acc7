import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { jsonBody } from '#shared/http/middleware/json-body';
import { jsonResponses } from '#shared/http/middleware/json-responses';
import { type ValidatedEvent, validateRequest } from '#shared/http/middleware/validate-request';
import type { RequestSchema } from '#shared/http/request-schemas';
import type { HttpResult } from '#shared/http/responses';
import { logger } from '#shared/observability/logger';
import { publishMetrics } from '#shared/observability/metrics';

export interface EndpointOptions<S extends RequestSchema> {
  /** What the request must look like; see shared/http/request-schemas.ts. */
  readonly request: S;
  /** Headers on every response of the operation. */
  readonly headers?: Readonly<Record<string, string>>;
}

export type EndpointHandler<S extends RequestSchema> = (
  input: z.output<S>,
  event: ValidatedEvent<S>,
) => Promise<HttpResult>;

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Stop this long before the Lambda timeout, so the client gets a 503, not a gateway error. */
const TIMEOUT_MARGIN_MS = 500;

/**
 * The HTTP endpoint every function is: the middy stack around a handler that only speaks the
 * domain. Order: logging context and metrics → JSON responses and error mapping → header
 * normalisation → (body size, content type, JSON parsing when the request has a body) →
 * validation → handler.
 */
export const httpEndpoint = <S extends RequestSchema>(
  options: EndpointOptions<S>,
  handle: EndpointHandler<S>,
): ProxyHandler =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult>({ timeoutEarlyInMillis: TIMEOUT_MARGIN_MS })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(publishMetrics())
    .use(jsonResponses({ headers: options.headers ?? {} }))
    .use(httpHeaderNormalizer())
    .use('body' in options.request.shape ? jsonBody() : [])
    .use(validateRequest(options.request))
    .handler(
      async (event) =>
        (await handle(
          (event as ValidatedEvent<S>).input,
          event as ValidatedEvent<S>,
        )) as unknown as APIGatewayProxyResult,
    );
