import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { methodNotAllowed } from '#shared/http/gateway-behaviour';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import {
  afterAnswer,
  expectationRefusal,
  framingRefusal,
  headerPairs,
  headerSectionBytes,
  MAX_HEADER_SECTION_BYTES,
  parserRefusal,
  rawRefusal,
  readBody,
  sendRefusal,
  sendResult,
  valuesOf,
} from '#tools/local/http-io';
import { firstAnswer, rawExchange } from '../support/network';

/**
 * How the local gateway reads requests and frames answers, on a real HTTP server on loopback:
 * header pairs as sent, the body limit, the Error object of a refusal, a function's proxy result.
 */

type Respond = (request: IncomingMessage, response: ServerResponse) => Promise<void> | void;

let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

/** Listens on a free loopback port, closed after the test; the port. */
const listen = async (server: Server): Promise<number> => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closeServer = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return (server.address() as AddressInfo).port;
};

/** A server on a free loopback port that answers every request with `respond`; its base URL. */
const serve = async (respond: Respond): Promise<string> => {
  const server = createServer((request, response) => {
    Promise.resolve()
      .then(() => respond(request, response))
      .catch((error: unknown) => {
        response.writeHead(599).end(error instanceof GatewayRefusal ? error.code : String(error));
      });
  });
  return `http://127.0.0.1:${await listen(server)}`;
};

/** A raw request, for headers fetch would merge or a body whose length it would set. */
const send = (
  url: string,
  options: { headers?: [string, string][]; body?: Buffer; chunks?: Buffer[] },
): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', headers: [['Host', 'localhost'], ...(options.headers ?? [])].flat() },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    for (const chunk of options.chunks ?? []) request.write(chunk);
    request.end(options.body);
  });

describe('reading a request', () => {
  it('keeps every header as sent: order, case and repeats', async () => {
    let pairs: [string, string][] = [];
    const url = await serve((request, response) => {
      pairs = headerPairs(request);
      response.end();
    });

    await send(url, {
      headers: [
        ['X-One', 'a'],
        ['x-one', 'b'],
        ['Authorization', 'Bearer k'],
      ],
    });

    expect(pairs.slice(0, 4)).toEqual([
      ['Host', 'localhost'],
      ['X-One', 'a'],
      ['x-one', 'b'],
      ['Authorization', 'Bearer k'],
    ]);
  });

  it('finds every value of a header whatever the case of its name', () => {
    const pairs: [string, string][] = [
      ['Origin', 'https://a.example'],
      ['Accept', '*/*'],
      ['ORIGIN', 'https://b.example'],
    ];

    expect(valuesOf(pairs, 'origin')).toEqual(['https://a.example', 'https://b.example']);
    expect(valuesOf(pairs, 'authorization')).toEqual([]);
  });

  it('reads a body of exactly the limit, sent in chunks', async () => {
    let body: Buffer | undefined;
    const url = await serve(async (request, response) => {
      body = await readBody(request, 10);
      response.end();
    });

    await send(url, { chunks: [Buffer.from('01234'), Buffer.from('56789')] });

    expect(body?.toString('utf8')).toBe('0123456789');
  });

  it('reads a body of exactly the limit when its length is declared', async () => {
    let body: Buffer | undefined;
    const url = await serve(async (request, response) => {
      body = await readBody(request, 10);
      response.end();
    });

    const answer = await send(url, { headers: [['Content-Length', '10']], body: Buffer.from('0123456789') });

    expect(answer.status).toBe(200);
    expect(body?.toString('utf8')).toBe('0123456789');
  });

  it('gives up reading when the client hangs up before the end of its body, as a refusal of the request', async () => {
    let reading: Promise<string> | undefined;
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const url = await serve(async (request) => {
      reading = readBody(request, 100).then(
        () => 'read',
        (error: unknown) =>
          error instanceof GatewayRefusal
            ? `${error.code} ${error.answer.status} ${error.message}`
            : String(error),
      );
      arrived();
      await reading;
    });
    const { hostname, port } = new URL(url);
    const request = httpRequest({ hostname, port, method: 'POST', headers: { 'Content-Length': '20' } });
    request.on('error', () => undefined);
    request.write('01234');

    await requestArrived;
    request.destroy();

    expect(await reading).toBe('VALIDATION_FAILED 400 The request ended before its body');
  });

  it('refuses a declared length over the limit at once, without waiting for the body', async () => {
    const url = await serve(async (request, response) => {
      await readBody(request, 10);
      response.end('read');
    });
    const { hostname, port } = new URL(url);

    // Eleven bytes declared, five sent, and the request left open: only the declaration can answer.
    const answer = await new Promise<string>((resolve, reject) => {
      const request = httpRequest(
        { hostname, port, method: 'POST', headers: { 'Content-Length': '11' } },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () => resolve(`${response.statusCode} ${text}`));
        },
      );
      request.on('error', reject);
      request.write('01234');
    });

    expect(answer).toBe('599 PAYLOAD_TOO_LARGE');
  });

  it('refuses a body one byte over the limit with REQUEST_TOO_LARGE, declared or sent without a length', async () => {
    const url = await serve(async (request, response) => {
      await readBody(request, 10);
      response.end('read');
    });

    const declared = await send(url, {
      headers: [['Content-Length', '11']],
      body: Buffer.from('0123456789A'),
    });
    const chunked = await send(url, {
      headers: [['Transfer-Encoding', 'chunked']],
      chunks: [Buffer.from('012345'), Buffer.from('6789A')],
    });

    expect(declared).toEqual({ status: 599, text: 'PAYLOAD_TOO_LARGE' });
    expect(chunked).toEqual({ status: 599, text: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('answering with a refusal', () => {
  it('sends the Error object with the status of its code, the house headers and the request id', async () => {
    let status = 0;
    const url = await serve((_request, response) => {
      status = sendRefusal(response, GatewayRefusal.of('MISSING_AUTHENTICATION_TOKEN'), 'request-1');
    });

    const response = await fetch(url);

    expect(status).toBe(404);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      code: 'NOT_FOUND',
      message: 'No such resource',
      status: 404,
      requestId: 'request-1',
    });
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      'x-amz-apigw-id': 'request-1',
    });
    expect(response.headers.get('request-id')).toBeNull();
    expect(response.headers.get('retry-after')).toBeNull();
  });

  it('says when to retry a 429 or 503', async () => {
    const url = await serve((request, response) => {
      sendRefusal(
        response,
        GatewayRefusal.of(request.url === '/429' ? 'THROTTLED' : 'AUTHORIZER_FAILURE'),
        'r',
      );
    });

    const [throttled, unavailable] = await Promise.all([fetch(`${url}/429`), fetch(`${url}/503`)]);

    expect([throttled.status, throttled.headers.get('retry-after')]).toEqual([429, '1']);
    expect([unavailable.status, unavailable.headers.get('retry-after')]).toEqual([503, '1']);
  });

  it("names the one allowed origin on a gateway response whoever asks, but on a mock's answer only to that origin", async () => {
    const cors = { allowed: ['https://a.example'], origin: 'https://b.example' };
    const url = await serve((request, response) => {
      const refusal =
        request.url === '/mock'
          ? new GatewayRefusal(methodNotAllowed(['GET']))
          : GatewayRefusal.of('UNAUTHORIZED');
      sendRefusal(response, refusal, 'r', cors);
    });

    const [gatewayResponse, mock] = await Promise.all([fetch(`${url}/gateway`), fetch(`${url}/mock`)]);

    expect(gatewayResponse.headers.get('access-control-allow-origin')).toBe('https://a.example');
    expect(mock.status).toBe(405);
    expect(mock.headers.get('access-control-allow-origin')).toBeNull();
    expect(mock.headers.get('vary')).toBe('Origin');
    expect(mock.headers.get('allow')).toBe('GET');
  });

  it('answers a refusal of its HTTP layer as a mock: the request id, and CORS only to an origin it allows', async () => {
    const url = await serve((request, response) => {
      sendRefusal(response, GatewayRefusal.httpLayer('VALIDATION_FAILED', 'Bad'), 'request-4', {
        allowed: ['https://a.example'],
        origin: request.headers.origin,
      });
    });

    const [allowed, other] = await Promise.all([
      fetch(url, { headers: { Origin: 'https://a.example' } }),
      fetch(url, { headers: { Origin: 'https://b.example' } }),
    ]);

    expect(allowed.headers.get('request-id')).toBe('request-4');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://a.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("names the request id and the caller's plan on an answer behind the authorizer", async () => {
    const url = await serve((_request, response) => {
      sendRefusal(response, new GatewayRefusal(methodNotAllowed(['GET'])), 'request-3', undefined, {
        rateLimitPolicy: '"basic";q=100;w=1',
      });
    });

    const response = await fetch(url);

    expect(response.headers.get('request-id')).toBe('request-3');
    expect(response.headers.get('ratelimit-policy')).toBe('"basic";q=100;w=1');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe("answering with a function's proxy result", () => {
  const answer = (result: unknown) =>
    serve((_request, response) => {
      const status = sendResult(response, result, 'request-2');
      expect(status).toBe((result as { statusCode: number }).statusCode);
    });

  it('sends its status, headers (values as text), multi-value headers and body, with the request id', async () => {
    const url = await answer({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', 'X-Count': 3 },
      multiValueHeaders: { 'X-Many': ['a', 2] },
      body: '{"id":1}',
    });

    const response = await fetch(url);

    expect(response.status).toBe(201);
    expect(await response.text()).toBe('{"id":1}');
    expect(response.headers.get('x-count')).toBe('3');
    expect(response.headers.get('x-many')).toBe('a, 2');
    expect(response.headers.get('x-amz-apigw-id')).toBe('request-2');
  });

  it("gives an answer without a Content-Type API Gateway's application/json, and keeps a function's own in any case", async () => {
    const url = await serve((request, response) => {
      const own = request.url === '/own' ? { headers: { 'content-TYPE': 'text/plain' } } : {};
      sendResult(response, { statusCode: request.url === '/304' ? 304 : 200, body: '', ...own }, 'r');
    });

    const [notModified, own] = await Promise.all([fetch(`${url}/304`), fetch(`${url}/own`)]);

    expect([notModified.status, notModified.headers.get('content-type')]).toEqual([304, 'application/json']);
    expect(own.headers.get('content-type')).toBe('text/plain');
  });

  it('decodes a base64-encoded body', async () => {
    const url = await answer({
      statusCode: 200,
      body: Buffer.from('plain text').toString('base64'),
      isBase64Encoded: true,
    });

    expect(await (await fetch(url)).text()).toBe('plain text');
  });

  it.each([
    ['no object', 'OK'],
    ['null', null],
    ['no statusCode', { body: '' }],
    ['a statusCode that is not a number', { statusCode: '200', body: '' }],
    ['a body that is not a string', { statusCode: 200, body: { id: 1 } }],
    ['no body', { statusCode: 200 }],
  ])('refuses %s as an integration failure', async (_case, result) => {
    const url = await serve((_request, response) => {
      sendResult(response, result, 'r');
    });

    const response = await fetch(url);

    expect([response.status, await response.text()]).toEqual([599, 'INTERNAL_ERROR']);
  });
});

/** What a refusal says: its status, code, message and whether it closes the connection. */
const said = (refusal: GatewayRefusal | undefined) =>
  refusal && {
    status: refusal.answer.status,
    code: refusal.code,
    message: refusal.message,
    close: refusal.answer.headers.Connection === 'close',
  };

/**
 * A server that answers each request Node parses with what `judge` makes of it (JSON of `said`, or
 * `null`), as the local gateway's server is set up: Host checked by framingRefusal, not by Node.
 */
const judging = async (judge: (request: IncomingMessage) => GatewayRefusal | undefined) => {
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    response.end(JSON.stringify(said(judge(request)) ?? null));
  });
  server.maxHeadersCount = 0;
  server.on('checkExpectation', (request, response) => {
    response.end(JSON.stringify(said(expectationRefusal(request))));
  });
  return listen(server);
};

/** The body of the answer to `text` sent as is on a new connection (the connection closed after it). */
const exchange = async (port: number, text: string): Promise<unknown> =>
  JSON.parse(firstAnswer(await rawExchange(port, text, { halfClose: true })).body) as unknown;

describe("refusing what Node's parser takes but API Gateway would not", () => {
  it('counts the request line and header lines as sent, each with its CRLF, a byte outside ASCII as one, not the empty line after them', async () => {
    let counted = 0;
    const url = await serve((request, response) => {
      counted = headerSectionBytes(request);
      response.end();
    });
    const { port } = new URL(url);
    const lines = 'GET /pets?limit=2 HTTP/1.1\r\nHost: localhost\r\nX-Name: é\r\n';

    await rawExchange(Number(port), `${lines}\r\n`, { halfClose: true });

    expect(counted).toBe(Buffer.byteLength(lines));
  });

  it('counts a header as `name: value`, whatever spaces and tabs were sent around its value', async () => {
    let counted = 0;
    const url = await serve((request, response) => {
      counted = headerSectionBytes(request);
      response.end();
    });
    const { port } = new URL(url);

    await rawExchange(Number(port), 'GET / HTTP/1.1\r\nHost:x\r\nX-Name: \t a b \t\r\n\r\n', {
      halfClose: true,
    });

    expect(counted).toBe(Buffer.byteLength('GET / HTTP/1.1\r\nHost: x\r\nX-Name: a b\r\n'));
  });

  it('takes a request line and headers of exactly 16 KiB and refuses one byte more with 431, closing the connection', async () => {
    const port = await judging(framingRefusal);
    /** A request whose line and header lines are `bytes` long, then the empty line that ends them. */
    const head = (bytes: number) => {
      const start = 'GET / HTTP/1.1\r\nHost: x\r\nX-Fill: ';
      const lines = `${start}${'a'.repeat(bytes - start.length - 2)}\r\n`;
      expect(Buffer.byteLength(lines)).toBe(bytes);
      return `${lines}\r\n`;
    };

    expect(MAX_HEADER_SECTION_BYTES).toBe(16_384);
    expect(await exchange(port, head(MAX_HEADER_SECTION_BYTES))).toBeNull();
    expect(await exchange(port, head(MAX_HEADER_SECTION_BYTES + 1))).toEqual({
      status: 431,
      code: 'HEADERS_TOO_LARGE',
      message: 'Request headers are too large',
      close: true,
    });
  });

  it.each([
    ['chunked alone, in any case', 'Transfer-Encoding: Chunked', null],
    [
      'codings other than chunked, named in lower case without spaces',
      'Transfer-Encoding: GZIP , deflate\r\nTransfer-Encoding: chunked',
      'gzip, deflate',
    ],
    ['an empty member of the list', 'Transfer-Encoding: , chunked', null],
  ])(
    'reads a Transfer-Encoding of %s (RFC 9112, 6.1: 501 for a coding it does not understand)',
    async (_case, header, named) => {
      const port = await judging(framingRefusal);

      const answer = await exchange(port, `POST / HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n0\r\n\r\n`);

      expect(answer).toEqual(
        named === null
          ? null
          : {
              status: 501,
              code: 'NOT_IMPLEMENTED',
              message: `Transfer-Encoding ${named} is not supported: send the body chunked or with a Content-Length`,
              close: true,
            },
      );
    },
  );

  it('names at most 64 characters of the codings it refuses', async () => {
    const port = await judging(framingRefusal);
    const coding = 'x'.repeat(100);

    const answer = await exchange(
      port,
      `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${coding}, chunked\r\n\r\n0\r\n\r\n`,
    );

    expect((answer as { message: string }).message).toBe(
      `Transfer-Encoding ${'x'.repeat(64)} is not supported: send the body chunked or with a Content-Length`,
    );
  });

  it('refuses a version other than 1.x with 505, naming it, and closes the connection', async () => {
    const port = await judging(framingRefusal);

    expect(await exchange(port, 'GET / HTTP/2.0\r\nHost: x\r\n\r\n')).toEqual({
      status: 505,
      code: 'HTTP_VERSION_NOT_SUPPORTED',
      message: 'HTTP/2.0 is not supported: send HTTP/1.1',
      close: true,
    });
  });

  it.each([
    ['an HTTP/1.1 request without Host', 'GET / HTTP/1.1\r\n\r\n', 'headers.host is required'],
    ['two Host headers', 'GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n', 'headers.host must be given once'],
  ])('refuses %s with 400 (RFC 9112, 3.2), closing the connection', async (_case, text, problem) => {
    const port = await judging(framingRefusal);

    expect(await exchange(port, text)).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: `Invalid request: ${problem}`,
      close: true,
    });
  });

  it('takes an HTTP/1.0 request without Host', async () => {
    const port = await judging(framingRefusal);

    expect(await exchange(port, 'GET / HTTP/1.0\r\n\r\n')).toBeNull();
  });

  it('refuses an Expect other than 100-continue with 417, naming at most 64 characters of it (RFC 9110, 10.1.1)', async () => {
    const port = await judging(framingRefusal);
    const send = (expect: string) =>
      exchange(port, `POST / HTTP/1.1\r\nHost: x\r\nExpect: ${expect}\r\nContent-Length: 2\r\n\r\n{}`);

    expect(await send('bogus')).toEqual({
      status: 417,
      code: 'EXPECTATION_FAILED',
      message: 'Expect: bogus cannot be met; only 100-continue is',
      close: true,
    });
    expect(await send('y'.repeat(100))).toMatchObject({
      message: `Expect: ${'y'.repeat(64)} cannot be met; only 100-continue is`,
    });
  });
});

describe("answering what Node's parser refused", () => {
  const parserError = (code: string, rawPacket?: string) =>
    Object.assign(
      new Error(code),
      { code },
      rawPacket === undefined ? {} : { rawPacket: Buffer.from(rawPacket) },
    );

  it('gives no answer to a client that reset the connection', () => {
    expect(parserRefusal(parserError('ECONNRESET'))).toBeUndefined();
  });

  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'HEADERS_TOO_LARGE', 'Request headers are too large'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'PAYLOAD_TOO_LARGE', 'Request chunk extensions are too large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'REQUEST_TIMEOUT', 'The request was not received in time'],
    ['HPE_INVALID_HEADER_TOKEN', 400, 'VALIDATION_FAILED', 'Malformed HTTP request'],
  ])('answers %s with %i %s', (code, status, errorCode, message) => {
    expect(said(parserRefusal(parserError(code)))).toEqual({
      status,
      code: errorCode,
      message,
      close: false,
    });
  });

  it.each([
    [
      'a well-formed version it cannot read',
      'GET / HTTP/9.9\r\nHost: x\r\n',
      505,
      'The HTTP version is not supported: send HTTP/1.1',
    ],
    [
      'a request line malformed around its version',
      'GET / HTTP/1.10\r\n',
      400,
      'Malformed request line: end it with " HTTP/1.1" and CRLF',
    ],
    ['no packet to look at', undefined, 400, 'Malformed request line: end it with " HTTP/1.1" and CRLF'],
  ])('answers an invalid version with %s by RFC 9112, 2.3 and 3', (_case, packet, status, message) => {
    expect(said(parserRefusal(parserError('HPE_INVALID_VERSION', packet)))).toMatchObject({
      status,
      message,
    });
  });

  it('writes the refusal as a whole HTTP/1.1 answer that closes the connection', () => {
    const refusal = GatewayRefusal.httpLayer('HTTP_VERSION_NOT_SUPPORTED', 'No');
    const body = '{"code":"HTTP_VERSION_NOT_SUPPORTED","message":"No","status":505,"requestId":"r-1"}';

    expect(rawRefusal(refusal, 'r-1')).toBe(
      'HTTP/1.1 505 HTTP Version Not Supported\r\n' +
        'Content-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n' +
        `x-amz-apigw-id: r-1\r\nRequest-Id: r-1\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  it('writes a refusal after the answer still being sent on the connection, at once when there is none', async () => {
    const order: string[] = [];
    let written: Promise<void> = Promise.resolve();
    const url = await serve((_request, response) => {
      afterAnswer(undefined, () => order.push('no answer pending'));
      order.push('returned');
      written = new Promise((resolve) => {
        afterAnswer(response, () => {
          order.push(`after the answer (sent: ${response.writableFinished})`);
          resolve();
        });
      });
      order.push('answering');
      response.end('answer', () => {
        afterAnswer(response, () => order.push('answer already sent'));
        order.push('returned');
      });
    });

    await (await fetch(url)).text();
    await written;

    await vi.waitFor(() => expect(order).toHaveLength(6));
    // Whether end()'s callback runs before the 'finish' listeners differs between Node 20 and 24.
    const afterEnd = order.slice(3);
    expect(order.slice(0, 3)).toEqual(['no answer pending', 'returned', 'answering']);
    expect(afterEnd).toContain('after the answer (sent: true)');
    expect(afterEnd.filter((step) => !step.startsWith('after the answer'))).toEqual([
      'answer already sent',
      'returned',
    ]);
  });
});
