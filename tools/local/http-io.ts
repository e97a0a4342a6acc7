import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { type ErrorCode, errorBody } from '#shared/http/error-body';
import { type AnswerContext, answerHeaders } from '#shared/http/gateway-behaviour';
import { API_GATEWAY_ID_HEADER, REQUEST_ID_HEADER } from '#shared/http/request-id';
import { GatewayRefusal } from '#tools/local/gateway-refusal';

/** Header pairs in the order and case they were sent (Node's `rawHeaders`: name, value, …). */
export const headerPairs = ({ rawHeaders }: IncomingMessage): [string, string][] =>
  rawHeaders.flatMap((name, index) => (index % 2 === 0 ? [[name, rawHeaders[index + 1] ?? '']] : []));

export const valuesOf = (pairs: readonly (readonly [string, string])[], name: string): string[] =>
  pairs.filter(([key]) => key.toLowerCase() === name).map(([, value]) => value);

const reading = new WeakMap<
  Socket,
  { readonly request: IncomingMessage; readonly refuse: (refusal: GatewayRefusal) => void }
>();

/** Ends `socket`'s body read with the parser's refusal; false if none, or read whole (then it is the next request's). */
export const refuseBodyRead = (socket: Socket, refusal: GatewayRefusal): boolean => {
  const read = reading.get(socket);
  if (!read || read.request.complete) return false;
  const { answer } = refusal;
  read.refuse(new GatewayRefusal({ ...answer, headers: { ...answer.headers, Connection: 'close' } }));
  return true;
};

/** The whole body, or a REQUEST_TOO_LARGE refusal past `limit` bytes (declared or sent). */
export const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise<Buffer>((resolveBody, reject) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(GatewayRefusal.of('REQUEST_TOO_LARGE'));
      return;
    }
    reading.set(request.socket, { request, refuse: reject });
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(GatewayRefusal.of('REQUEST_TOO_LARGE'));
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolveBody(Buffer.concat(chunks)));
    // The client went away (or Node gave up on it) first: a refusal, never a server failure. Node emits
    // no 'error' on a request nobody listens for it on, and 'close' always.
    request.on('close', () => {
      if (!request.complete) {
        reject(GatewayRefusal.httpLayer('VALIDATION_FAILED', 'The request ended before its body'));
      }
    });
  }).finally(() => {
    if (reading.get(request.socket)?.request === request) reading.delete(request.socket);
  });

/** Sends a refusal as API Gateway does (CORS, `x-amz-apigw-id`, the caller's plan once accepted); returns its status. */
export const sendRefusal = (
  response: ServerResponse,
  refusal: GatewayRefusal,
  requestId: string,
  cors: { readonly allowed: AllowedOrigins; readonly origin: string | undefined } = {
    allowed: [],
    origin: undefined,
  },
  authorizer?: AnswerContext['authorizer'],
): number => {
  const { status } = refusal.answer;
  response.writeHead(status, {
    ...answerHeaders(refusal.answer, cors.allowed, cors.origin, {
      requestId,
      ...(authorizer ? { authorizer } : {}),
    }),
    [API_GATEWAY_ID_HEADER]: requestId,
  });
  response.end(JSON.stringify(errorBody(refusal.code, refusal.message, { requestId })));
  return status;
};

/**
 * A function's proxy result as the HTTP answer; a malformed one is an integration failure. API Gateway gives one
 * without a `Content-Type` (a 204, a 304) `application/json` ("Amazon API Gateway important notes": "API Gateway
 * includes a Content-Type header for all integration responses. By default, the content type is application/json").
 */
export const sendResult = (response: ServerResponse, result: unknown, requestId: string): number => {
  const proxy = result as Partial<APIGatewayProxyResult> | null;
  if (typeof proxy?.statusCode !== 'number' || typeof proxy.body !== 'string') {
    throw GatewayRefusal.of('INTEGRATION_FAILURE');
  }
  const named = [...Object.keys(proxy.headers ?? {}), ...Object.keys(proxy.multiValueHeaders ?? {})];
  const headers: Record<string, string | string[]> = {
    ...(named.some((name) => name.toLowerCase() === 'content-type')
      ? {}
      : { 'Content-Type': 'application/json' }),
    [API_GATEWAY_ID_HEADER]: requestId,
  };
  for (const [name, value] of Object.entries(proxy.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(proxy.multiValueHeaders ?? {})) {
    headers[name] = values.map(String);
  }
  response.writeHead(proxy.statusCode, headers);
  response.end(proxy.isBase64Encoded ? Buffer.from(proxy.body, 'base64') : proxy.body);
  return proxy.statusCode;
};

/** Largest request line and header lines together, counted by headerSectionBytes: 16 KiB, Node's own `maxHeaderSize`. */
export const MAX_HEADER_SECTION_BYTES = 16 * 1024;

/**
 * A request's line and header lines in bytes, each line as sent with its CRLF and a header as `name: value`;
 * not the empty line that ends them, nor spaces or tabs around a value (Node keeps no raw bytes, and trims
 * them). Node's own limit counts target, names and values only (431 once they reach `maxHeaderSize`), so
 * 2,800 `a: b` (16.8 KB sent) pass it as 5.6 KB, and never comes first. Node reads each byte as one latin1
 * character, so a string's length is its bytes as sent.
 */
export const headerSectionBytes = (request: IncomingMessage): number => {
  const line = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`;
  const fields = headerPairs(request).reduce((sum, [name, value]) => sum + `${name}: ${value}\r\n`.length, 0);
  return line.length + fields;
};

/** Transfer codings other than `chunked` (Node frames by it, and passes any coding before it undecoded). */
const unknownTransferCodings = (request: IncomingMessage): string[] =>
  valuesOf(headerPairs(request), 'transfer-encoding')
    .flatMap((value) => value.split(','))
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'chunked');

/** A refusal of the HTTP layer that closes the connection: what follows cannot be read as sent. */
const closing = (code: ErrorCode, message: string) =>
  GatewayRefusal.httpLayer(code, message, { Connection: 'close' });

/**
 * A request Node parsed but API Gateway would not take: a request line and headers over 16 KiB (431), a transfer
 * coding other than chunked (RFC 9112, 6.1: "A server that receives a request message with a transfer
 * coding it does not understand SHOULD respond with 501"), a version other than 1.x (Node reads
 * `HTTP/2.0` and `HTTP/0.9` like any other), an HTTP/1.1 request without one `Host` (RFC 9112, 3.2: 400).
 */
export const framingRefusal = (request: IncomingMessage): GatewayRefusal | undefined => {
  if (headerSectionBytes(request) > MAX_HEADER_SECTION_BYTES) {
    return closing('HEADERS_TOO_LARGE', 'Request headers are too large');
  }
  const codings = unknownTransferCodings(request);
  if (codings.length > 0) {
    return closing(
      'NOT_IMPLEMENTED',
      `Transfer-Encoding ${codings.join(', ').slice(0, 64)} is not supported: send the body chunked or with a Content-Length`,
    );
  }
  if (request.httpVersionMajor !== 1) {
    return closing(
      'HTTP_VERSION_NOT_SUPPORTED',
      `HTTP/${request.httpVersion} is not supported: send HTTP/1.1`,
    );
  }
  const hosts = valuesOf(headerPairs(request), 'host');
  if (request.httpVersionMinor >= 1 && hosts.length !== 1) {
    const problem = hosts.length === 0 ? 'is required' : 'must be given once';
    return closing('VALIDATION_FAILED', `Invalid request: headers.host ${problem}`);
  }
  return undefined;
};

/** The answer to an `Expect` other than `100-continue` (RFC 9110, 10.1.1): 417, and the connection closed. */
export const expectationRefusal = (request: IncomingMessage): GatewayRefusal =>
  closing(
    'EXPECTATION_FAILED',
    `Expect: ${String(request.headers.expect ?? '').slice(0, 64)} cannot be met; only 100-continue is`,
  );

/** Ends in a well-formed version (RFC 9112, 2.3: `HTTP-version = HTTP-name "/" DIGIT "." DIGIT`) and CRLF. */
const WELL_FORMED_VERSION = /^[^\r\n]* HTTP\/\d\.\d\r\n/;

/**
 * What to answer a request Node's parser refused, by its error code; undefined when the client reset the
 * connection. Node's statuses are kept (431, 408, else 400); a version it cannot read is 505, but a request
 * line malformed around its version (a bare LF, a space after it, `HTTP/1.10`), the same error to Node, is
 * 400 (RFC 9112, 3: "Recipients of an invalid request-line SHOULD respond with either a 400 (Bad Request)
 * error or a 301 (Moved Permanently) redirect").
 */
export const parserRefusal = (
  error: NodeJS.ErrnoException & { readonly rawPacket?: Buffer },
): GatewayRefusal | undefined => {
  switch (error.code) {
    case 'ECONNRESET':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return GatewayRefusal.httpLayer('HEADERS_TOO_LARGE', 'Request headers are too large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return GatewayRefusal.httpLayer('PAYLOAD_TOO_LARGE', 'Request chunk extensions are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return GatewayRefusal.httpLayer('REQUEST_TIMEOUT', 'The request was not received in time');
    case 'HPE_INVALID_VERSION':
      return WELL_FORMED_VERSION.test(error.rawPacket?.toString('latin1') ?? '')
        ? GatewayRefusal.httpLayer(
            'HTTP_VERSION_NOT_SUPPORTED',
            'The HTTP version is not supported: send HTTP/1.1',
          )
        : GatewayRefusal.httpLayer(
            'VALIDATION_FAILED',
            'Malformed request line: end it with " HTTP/1.1" and CRLF',
          );
    default:
      return GatewayRefusal.httpLayer('VALIDATION_FAILED', 'Malformed HTTP request');
  }
};

/** Runs `write` once the connection's `pending` answer is sent: a pipelined refusal follows earlier answers. */
export const afterAnswer = (pending: ServerResponse | undefined, write: () => void): void => {
  if (pending && !pending.writableFinished) pending.once('finish', write);
  else write();
};

/** A refusal as the raw bytes of an HTTP/1.1 answer, for a request Node could not parse (no ServerResponse). */
export const rawRefusal = (refusal: GatewayRefusal, requestId: string): string => {
  const { status } = refusal.answer;
  const body = JSON.stringify(errorBody(refusal.code, refusal.message, { requestId }));
  const headers = {
    ...refusal.answer.headers,
    [API_GATEWAY_ID_HEADER]: requestId,
    [REQUEST_ID_HEADER]: requestId,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('')}\r\n${body}`;
};
