import type { ServerResponse } from 'node:http';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { withDeadline } from '#shared/deadline';
import { methodNotAllowed } from '#shared/http/gateway-behaviour';
import { AUTHORIZER_TIMEOUT_SECONDS } from '#shared/lambda';
import { LOCAL_API, methodArn, proxyEvent } from '#tools/lambda/events';
import { authorizeRequest } from '#tools/local/authorization';
import { callerOf } from '#tools/local/fair-use';
import { invokeFunction } from '#tools/local/function-invocation';
import type { GatewaySetup } from '#tools/local/gateway';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import { sendResult, valuesOf } from '#tools/local/http-io';
import { mockRefuses, type RoutedRequest } from '#tools/local/routing';

/** The authorizer's answer for the request, within its deadline; throws GatewayRefusal otherwise. */
const authorize = (setup: GatewaySetup, routed: RoutedRequest): Promise<APIGatewayAuthorizerResult> =>
  withDeadline(routed.deadline, () =>
    authorizeRequest({
      authorizer: setup.authorizer,
      tokens: valuesOf(routed.headers, 'authorization'),
      methodArn: methodArn(LOCAL_API, routed.method, routed.match.path),
      timeoutMs: AUTHORIZER_TIMEOUT_SECONDS * 1_000,
      requestId: routed.context.requestId,
    }),
  );

/** The REST proxy event (payload 1.0) API Gateway hands the function of a routed request. */
const eventOf = (
  routed: RoutedRequest & { match: { kind: 'operation' } },
  authorization: APIGatewayAuthorizerResult,
) =>
  proxyEvent({
    method: routed.method,
    path: routed.match.path,
    resource: routed.match.operation.path,
    pathParameters: routed.match.pathParameters,
    headers: routed.headers,
    query: routed.url.searchParams,
    body: routed.body.length > 0 ? routed.body.toString('utf8') : null,
    requestId: routed.context.requestId,
    authorizer: { principalId: authorization.principalId, ...authorization.context },
    sourceIp: routed.request.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${routed.request.httpVersion}`,
    now: routed.received,
  });

/**
 * A routed request's steps behind the authorizer, in API Gateway's order: the authorizer, the
 * key's plan, then the 405 mock or the function. Returns the status answered.
 */
export const serveBehindAuthorizer = async (
  setup: GatewaySetup,
  routed: RoutedRequest,
  response: ServerResponse,
): Promise<number> => {
  const authorization = await authorize(setup, routed);
  routed.context.authorizer = authorization.context ?? {};
  const admission = setup.fairUse?.admit(callerOf(authorization));
  if (admission && !admission.admitted) throw GatewayRefusal.of(admission.refusal);
  const { match } = routed;
  if (match.kind === 'method-not-allowed') {
    if (mockRefuses(routed.headers)) throw GatewayRefusal.of('UNSUPPORTED_MEDIA_TYPE');
    throw new GatewayRefusal(methodNotAllowed(match.allow));
  }
  const event = eventOf({ ...routed, match }, authorization);
  const result = await invokeFunction(setup, match.operation.operationId, event);
  return sendResult(response, result, routed.context.requestId);
};
