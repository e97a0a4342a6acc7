import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { CONTRACTS } from '#functions/operations';
import { Deadline, REQUEST_BUDGET_MS, withDeadline } from '#shared/deadline';
import {
  answerHeaders,
  corsAllowedHeaders,
  gatewayResponse,
  methodNotAllowed,
  preflight,
} from '#shared/http/gateway-behaviour';
import { API_GATEWAY_ID_HEADER, REQUEST_ID_HEADER } from '#shared/http/request-id';
import { RESPONSE_HEADERS } from '#shared/http/responses';
import { AUTHORIZER_TIMEOUT_SECONDS } from '#shared/lambda';
import { LOCAL_API, methodArn, proxyEvent } from '#tools/lambda/events';
import { authorizeRequest } from '#tools/local/authorization';
import { callerOf } from '#tools/local/fair-use';
import { invokeFunction } from '#tools/local/function-invocation';
import type { GatewaySetup } from '#tools/local/gateway';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import { headerPairs, readBody, sendResult, valuesOf } from '#tools/local/http-io';
import {
  inStage,
  mockRefuses,
  originOf,
  type RequestContext,
  type RoutedRequest,
  type RouteMatch,
  requestTarget,
  route,
} from '#tools/local/routing';
import { staticFile } from '#tools/local/static-files';

const staticPathOf = (request: IncomingMessage): string | undefined => {
  const { pathname } = requestTarget(request.url ?? '/');
  return request.method === 'GET' && !inStage(pathname) ? pathname : undefined;
};

/** The static file at `path`: 200 with it, without a key; undefined when there is none. */
const serveStaticFile = async (
  setup: GatewaySetup,
  path: string,
  response: ServerResponse,
  requestId: string,
): Promise<number | undefined> => {
  const file = staticFile(await setup.staticRoutes, path);
  if (!file) return undefined;
  response
    .writeHead(200, {
      ...RESPONSE_HEADERS,
      'Content-Type': file.contentType,
      [REQUEST_ID_HEADER]: requestId,
      [API_GATEWAY_ID_HEADER]: requestId,
    })
    .end(file.body);
  return 200;
};

/** API Gateway's 404 for a path it has no resource for; where the reference is served, it says where the paths are listed. */
const noResource = async (setup: GatewaySetup): Promise<GatewayRefusal> => {
  const answer = gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
  const docs = staticFile(await setup.staticRoutes.catch(() => ({})), '/docs');
  const message = `${answer.error.message}: the API's paths are listed at /docs`;
  return new GatewayRefusal(docs ? { ...answer, error: { ...answer.error, message } } : answer);
};

/** The OPTIONS mock: no key, no function, no body. */
const answerPreflight = (
  setup: GatewaySetup,
  request: IncomingMessage,
  response: ServerResponse,
  match: Extract<RouteMatch, { kind: 'preflight' }>,
  context: RequestContext,
): number => {
  if (mockRefuses(headerPairs(request))) throw GatewayRefusal.of('UNSUPPORTED_MEDIA_TYPE');
  const answer = preflight(match.allow, corsAllowedHeaders(CONTRACTS));
  response.writeHead(answer.status, {
    ...answerHeaders(answer, setup.corsOrigins, originOf(request), context),
    [API_GATEWAY_ID_HEADER]: context.requestId,
  });
  response.end();
  return answer.status;
};

const authorize = (setup: GatewaySetup, routed: RoutedRequest): Promise<APIGatewayAuthorizerResult> =>
  withDeadline(routed.deadline, () =>
    authorizeRequest({
      authorizer: setup.authorizer,
      tokens: valuesOf(routed.headers, 'authorization'),
      methodArn: methodArn(LOCAL_API, routed.method, routed.match.path),
      timeoutMs: AUTHORIZER_TIMEOUT_SECONDS * 1_000,
      requestId: routed.context.requestId,
      cached: setup.cachedDecisions,
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

/** In API Gateway's order: the authorizer, the key's plan, then the 405 mock or the function. */
const serveBehindAuthorizer = async (
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

/** One request in API Gateway's order (body size, route, then the steps above); refusals are thrown. */
export const serveRequest = async (
  setup: GatewaySetup,
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
): Promise<number> => {
  const staticPath = staticPathOf(request);
  // Only then a wait: any other request's body is read at once, before Node's parser can refuse it.
  const served = staticPath && (await serveStaticFile(setup, staticPath, response, context.requestId));
  if (served) return served;
  const method = request.method ?? 'GET';
  const url = requestTarget(request.url ?? '/');
  const body = await readBody(request, setup.maxPayloadBytes);
  // requestTimeEpoch: the deadline counts from here, its wait for a turn and the authorizer included.
  const received = new Date();
  const deadline = Deadline.in(REQUEST_BUDGET_MS, received.getTime());
  const match = route(method, url.pathname);
  if (match.kind === 'no-resource') throw await noResource(setup);
  if (match.kind === 'preflight') return answerPreflight(setup, request, response, match, context);
  const headers = headerPairs(request);
  const routed = { request, context, method, url, headers, body, received, deadline, match };
  // Turns go round the callers, each known by its token as the authorizer's cache knows it.
  const caller = valuesOf(headers, 'authorization').join('\n');
  // In AWS the authorizer starts on arrival, so its lookup ends within the deadline however late it starts.
  return setup.turns.run(caller, deadline, () => serveBehindAuthorizer(setup, routed, response));
};
