import { createServer, type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import pLimit from 'p-limit';
import { CONTRACTS } from '#functions/operations';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { Deadline, REQUEST_BUDGET_MS, withDeadline } from '#shared/deadline';
import { singleOrigin } from '#shared/http/cors';
import { ERROR_STATUS } from '#shared/http/error-body';
import {
  type AnswerContext,
  answerHeaders,
  corsAllowedHeaders,
  gatewayResponse,
  methodNotAllowed,
  mockAccepts,
  preflight,
} from '#shared/http/gateway-behaviour';
import { BASE_PATH } from '#shared/http/paths';
import { API_GATEWAY_ID_HEADER, REQUEST_ID_HEADER } from '#shared/http/request-id';
import { RESPONSE_HEADERS } from '#shared/http/responses';
import {
  AUTHORIZER_TIMEOUT_SECONDS,
  HANDLER_TIMEOUT_SECONDS,
  type ProxyHandler,
  type TokenAuthorizerHandler,
} from '#shared/lambda';
import type { Operation } from '#shared/operations/operation';
import { lambdaContext } from '#tools/lambda/context';
import { LOCAL_API, methodArn, newRequestId, proxyEvent } from '#tools/lambda/events';
import { allowOverlappingInvocations, inInvocationStore } from '#tools/lambda/invoke-store';
import { authorizeRequest } from '#tools/local/authorization';
import { callerOf, type FairUse } from '#tools/local/fair-use';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import {
  afterAnswer,
  expectationRefusal,
  framingRefusal,
  headerPairs,
  parserRefusal,
  rawRefusal,
  readBody,
  refuseBodyRead,
  sendRefusal,
  sendResult,
  valuesOf,
} from '#tools/local/http-io';
import { requestTarget, route } from '#tools/local/routing';
import { type StaticRoutes, staticFile } from '#tools/local/static-files';
import { inTurn } from '#tools/local/turns';

export interface LocalGatewayOptions {
  /** The operations it routes to. @default CONTRACTS (functions/operations.ts) */
  readonly operations?: readonly Operation[];
  /** By operation id. */
  readonly handlers: Readonly<Record<string, ProxyHandler>>;
  readonly authorizer: TokenAuthorizerHandler;
  /** @default 3000 (0 picks a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** One line per request; silent when omitted. */
  readonly log?: (line: string) => void;
  /** API Gateway's own payload limit (10 MB); the functions enforce the API's smaller one. */
  readonly maxPayloadBytes?: number;
  /** The Lambda timeout the handlers see in `getRemainingTimeInMillis`. @default the stack's, 15 s */
  readonly functionTimeoutMs?: number;
  /** Files served outside the stage, without a key; the API does not wait for them. @default {} */
  readonly staticRoutes?: StaticRoutes | Promise<StaticRoutes>;
  /** Requests served at once; the rest wait their turn. @default LOCAL_CONCURRENCY */
  readonly concurrency?: number;
  /** The stage's `allowedOrigins`, for the gateway's own answers (the functions get their own). @default none */
  readonly corsOrigins?: AllowedOrigins;
  /** Each key's plan, enforced as API Gateway's usage plans do. @default none: no key is limited */
  readonly fairUse?: FairUse;
  /** Node's limits on a slow client (answered 408). @default Node's: 60 s, 300 s, checked every 30 s */
  readonly timeouts?: {
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly connectionsCheckingIntervalMs: number;
  };
}

export interface LocalGateway {
  readonly baseUrl: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

const API_GATEWAY_PAYLOAD_LIMIT = 10 * 1024 * 1024;

/** A request's id, and once a key is accepted the authorizer's context. */
interface RequestContext {
  readonly requestId: string;
  authorizer?: AnswerContext['authorizer'];
}

/**
 * Requests served at once. In AWS each gets a Lambda environment; here all share one process and
 * one DynamoDB Local, so a burst waits here, outside any SDK timer. Eight: 300 creates on a busy
 * machine took as long at 8 as at 32, with far fewer retries.
 */
export const LOCAL_CONCURRENCY = 8;

/**
 * The local stand-in for API Gateway: routes by the contracts, calls the real authorizer (TOKEN
 * event) and handlers (REST proxy events, payload 1.0), and answers its own failures with the Error object.
 */
export const startLocalGateway = async (options: LocalGatewayOptions): Promise<LocalGateway> => {
  const host = options.host ?? '127.0.0.1';
  const maxPayloadBytes = options.maxPayloadBytes ?? API_GATEWAY_PAYLOAD_LIMIT;
  const timeoutMs = options.functionTimeoutMs ?? HANDLER_TIMEOUT_SECONDS * 1_000;
  const operations = options.operations ?? CONTRACTS;
  const staticRoutes = Promise.resolve(options.staticRoutes ?? {});
  const concurrency = options.concurrency ?? LOCAL_CONCURRENCY;
  const limit = pLimit(concurrency);
  // The functions run side by side here, each invocation in a store of its own for its log keys.
  allowOverlappingInvocations(concurrency);
  const authorizer = inInvocationStore(options.authorizer);
  const corsOrigins = options.corsOrigins ?? [];
  const originOf = (request: IncomingMessage) => singleOrigin(valuesOf(headerPairs(request), 'origin'));

  /** One request, in API Gateway's order: body size, route, authorizer, the key's plan, 405, function. */
  const serve = async (request: IncomingMessage, response: ServerResponse, context: RequestContext) => {
    const { requestId } = context;
    const headers = headerPairs(request);
    const method = request.method ?? 'GET';
    const url = requestTarget(request.url ?? '/');
    const inStage = url.pathname === BASE_PATH || url.pathname.startsWith(`${BASE_PATH}/`);
    const file = method === 'GET' && !inStage ? staticFile(await staticRoutes, url.pathname) : undefined;
    if (file) {
      response
        .writeHead(200, {
          ...RESPONSE_HEADERS,
          'Content-Type': file.contentType,
          [REQUEST_ID_HEADER]: requestId,
          [API_GATEWAY_ID_HEADER]: requestId,
        })
        .end(file.body);
      return 200;
    }
    const body = await readBody(request, maxPayloadBytes);
    // requestTimeEpoch: the deadline counts from here, its wait for a turn and the authorizer included.
    const received = new Date();
    const deadline = Deadline.in(REQUEST_BUDGET_MS, received.getTime());
    const match = route(method, url.pathname, operations);
    if (match.kind === 'no-resource') {
      // Where the reference is served, a path that is not the API's says where its paths are listed.
      const answer = gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
      const docs = staticFile(await staticRoutes.catch(() => ({})), '/docs');
      const message = `${answer.error.message}: the API's paths are listed at /docs`;
      throw new GatewayRefusal(docs ? { ...answer, error: { ...answer.error, message } } : answer);
    }
    // A mock (the preflight, the 405) has request templates for some content types only.
    const mockRefuses = () => !mockAccepts(valuesOf(headers, 'content-type').at(-1));
    if (match.kind === 'preflight') {
      // The OPTIONS mock: no key, no function, no body.
      if (mockRefuses()) throw GatewayRefusal.of('UNSUPPORTED_MEDIA_TYPE');
      const answer = preflight(match.allow, corsAllowedHeaders(operations));
      response.writeHead(answer.status, {
        ...answerHeaders(answer, corsOrigins, originOf(request), context),
        [API_GATEWAY_ID_HEADER]: requestId,
      });
      response.end();
      return answer.status;
    }
    const arn = methodArn(LOCAL_API, method, match.path);
    // In AWS the authorizer starts on arrival, so its lookup ends within the deadline however late it starts.
    return inTurn(limit, deadline, async () => {
      const authorization = await withDeadline(deadline, () =>
        authorizeRequest({
          authorizer,
          tokens: valuesOf(headers, 'authorization'),
          methodArn: arn,
          timeoutMs: AUTHORIZER_TIMEOUT_SECONDS * 1_000,
          requestId,
        }),
      );
      context.authorizer = authorization.context ?? {};
      const admission = options.fairUse?.admit(callerOf(authorization));
      if (admission && !admission.admitted) throw GatewayRefusal.of(admission.refusal);
      if (match.kind === 'method-not-allowed') {
        if (mockRefuses()) throw GatewayRefusal.of('UNSUPPORTED_MEDIA_TYPE');
        throw new GatewayRefusal(methodNotAllowed(match.allow));
      }
      const { operationId } = match.operation;
      const event = proxyEvent({
        method,
        path: match.path,
        resource: match.operation.path,
        pathParameters: match.pathParameters,
        headers,
        query: url.searchParams,
        body: body.length > 0 ? body.toString('utf8') : null,
        requestId,
        authorizer: { principalId: authorization.principalId, ...authorization.context },
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        protocol: `HTTP/${request.httpVersion}`,
        now: received,
      });
      const handler = options.handlers[operationId];
      let result: unknown;
      try {
        if (!handler) throw new Error(`No handler for ${operationId}`);
        result = await inInvocationStore(handler)(event, lambdaContext(operationId, { timeoutMs }));
      } catch {
        // A function that throws is an integration failure to API Gateway, never a stack trace.
        throw GatewayRefusal.of('INTEGRATION_FAILURE');
      }
      return sendResult(response, result, requestId);
    });
  };

  /** The answer each socket is writing now: a parser error must not write over it. */
  const answering = new WeakMap<Socket, ServerResponse>();

  /** A request to its answer and its log line; `refused`: answered with it, without being served. */
  const handle = (request: IncomingMessage, response: ServerResponse, refused?: GatewayRefusal) => {
    const started = performance.now();
    const context: RequestContext = { requestId: newRequestId() };
    answering.set(request.socket, response);
    response.once('finish', () => {
      // A later pipelined request's answer may be the socket's now.
      if (answering.get(request.socket) === response) answering.delete(request.socket);
    });
    (refused ? Promise.reject(refused) : serve(request, response, context))
      .catch((error: unknown) => {
        const cors = { allowed: corsOrigins, origin: originOf(request) };
        if (error instanceof GatewayRefusal)
          return sendRefusal(response, error, context.requestId, cors, context.authorizer);
        options.log?.(
          `gateway error: ${error instanceof Error ? error.message : String(error)} ${context.requestId}`,
        );
        return sendRefusal(response, GatewayRefusal.of('DEFAULT_5XX'), context.requestId, cors);
      })
      .then((status) => {
        // The path only: a query string may carry anything, a key sent by mistake included.
        const path = (request.url ?? '/').split('?')[0];
        const ms = (performance.now() - started).toFixed(1);
        options.log?.(`${request.method} ${path} ${status} ${ms}ms ${context.requestId}`);
      });
  };

  const server = createServer(
    {
      // Checked in framingRefusal, to answer with the Error object rather than Node's bare 400.
      requireHostHeader: false,
      // Node's own defaults where undefined.
      headersTimeout: options.timeouts?.headersTimeoutMs,
      requestTimeout: options.timeouts?.requestTimeoutMs,
      connectionsCheckingInterval: options.timeouts?.connectionsCheckingIntervalMs,
    },
    (request, response) => handle(request, response, framingRefusal(request)),
  );
  // Node silently drops headers past the first thousand (a repeated Authorization among them): 0 is
  // no limit; the header size limit (16 KiB, answered 431) bounds them instead.
  server.maxHeadersCount = 0;
  // `Expect: 100-continue` Node answers itself (100, then the request); any other expectation, this.
  server.on('checkExpectation', (request, response) =>
    handle(request, response, expectationRefusal(request)),
  );
  // CONNECT has no resource here: the same steps as any method answer it (404, or 401/405), then close.
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket);
    response.once('finish', () => socket.end());
    handle(request, response, framingRefusal(request));
  });
  // What Node's parser refuses never becomes a request: answered here, unless the client is gone
  // or an answer is already on its way.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const refusal = parserRefusal(error);
    // Within a body being read (a malformed chunk): the request's own answer, and its one log line.
    if (refusal && refuseBodyRead(socket, refusal)) return;
    if (!refusal || !socket.writable) {
      socket.destroy();
      return;
    }
    // One answer per request, in order (RFC 9112, 9.3.2): the requests before it are answered first.
    afterAnswer(answering.get(socket), () => {
      const requestId = newRequestId();
      socket.end(rawRefusal(refusal, requestId));
      options.log?.(`- - ${ERROR_STATUS[refusal.code]} (${error.code ?? 'malformed request'}) ${requestId}`);
    });
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}${BASE_PATH}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
};
