import { createServer, type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { newRequestId } from '#tools/lambda/events';
import type { ClientTimeouts, GatewaySetup } from '#tools/local/gateway';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import {
  afterAnswer,
  expectationRefusal,
  framingRefusal,
  parserRefusal,
  rawRefusal,
  refuseBodyRead,
  sendRefusal,
} from '#tools/local/http-io';
import { originOf, type RequestContext } from '#tools/local/routing';
import { serveRequest } from '#tools/local/serve-request';

/** The answer each socket is writing now: a parser error must not write over it. */
type Answering = WeakMap<Socket, ServerResponse>;

const answerFailure = (
  setup: GatewaySetup,
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
  error: unknown,
): number => {
  const cors = { allowed: setup.corsOrigins, origin: originOf(request) };
  if (error instanceof GatewayRefusal) {
    return sendRefusal(response, error, context.requestId, cors, context.authorizer);
  }
  setup.log?.(
    `gateway error: ${error instanceof Error ? error.message : String(error)} ${context.requestId}`,
  );
  return sendRefusal(response, GatewayRefusal.of('DEFAULT_5XX'), context.requestId, cors);
};

/** A request to its answer and its log line; `refused`: answered with it, without being served. */
const handle = (
  setup: GatewaySetup,
  answering: Answering,
  request: IncomingMessage,
  response: ServerResponse,
  refused?: GatewayRefusal,
): void => {
  const started = performance.now();
  const context: RequestContext = { requestId: newRequestId() };
  answering.set(request.socket, response);
  response.once('finish', () => {
    // A later pipelined request's answer may be the socket's now.
    if (answering.get(request.socket) === response) answering.delete(request.socket);
  });
  (refused ? Promise.reject(refused) : serveRequest(setup, request, response, context))
    .catch((error: unknown) => answerFailure(setup, request, response, context, error))
    .then((status) => {
      // The path only: a query string may carry anything, a key sent by mistake included.
      const path = (request.url ?? '/').split('?')[0];
      const ms = (performance.now() - started).toFixed(1);
      setup.log?.(`${request.method} ${path} ${status} ${ms}ms ${context.requestId}`);
    });
};

/** What Node's parser refuses never becomes a request: answered after the socket's earlier answers. */
const answerClientError = (
  setup: GatewaySetup,
  answering: Answering,
  error: NodeJS.ErrnoException,
  socket: Socket,
): void => {
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
    setup.log?.(`- - ${refusal.answer.status} (${error.code ?? 'malformed request'}) ${requestId}`);
  });
};

/**
 * How often Node looks for requests past their timeouts, and answers them 408: its default, every 30 s,
 * answered them up to 30 s late (77 s for a minute's headers); twice a second, within half a second. Each
 * look is one pass over the connections still reading a request (Node's `connectionsCheckingInterval`).
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 500;

/** Node's HTTP server, every request it parses (and every one it cannot) answered as the gateway's. */
export const gatewayServer = (setup: GatewaySetup, timeouts: ClientTimeouts): Server => {
  const answering: Answering = new WeakMap();
  const serve = (request: IncomingMessage, response: ServerResponse, refused?: GatewayRefusal) =>
    handle(setup, answering, request, response, refused);
  const server = createServer(
    {
      // Checked in framingRefusal, to answer with the Error object rather than Node's bare 400.
      requireHostHeader: false,
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    (request, response) => serve(request, response, framingRefusal(request)),
  );
  // Node drops headers past the first 1,000 (a repeated Authorization among them); 16 KiB (431) bounds them.
  server.maxHeadersCount = 0;
  // `Expect: 100-continue` Node answers itself (100, then the request); any other expectation, this.
  server.on('checkExpectation', (request, response) => serve(request, response, expectationRefusal(request)));
  // CONNECT has no resource here: the same steps as any method answer it (404, or 401/405), then close.
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket);
    response.once('finish', () => socket.end());
    serve(request, response, framingRefusal(request));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(setup, answering, error, socket),
  );
  return server;
};
