import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { allowedMethods } from '#functions/operations';
import { generateApiKey } from '#shared/auth/api-key';
import { REQUEST_BUDGET_MS } from '#shared/deadline';
import type { ProxyHandler, TokenAuthorizerHandler } from '#shared/lambda';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import { type LocalFunctions, localFunctions } from '#tools/local/local-stack';
import { everyOperation } from '../support/every-operation';
import { firstAnswer, type RawAnswer, rawExchange } from '../support/network';
import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';

/**
 * The local gateway as a server, in front of the real authorizer and functions on DynamoDB Local:
 * API Gateway's order of steps (static files, route, authorizer, 405, function), what it hands
 * each function, and its own answers. The functions are wrapped only to record what they receive.
 */

const APP = 'http://localhost:5173';
/** What a page may read on API Gateway's own answers: the headers any answer may carry. */
const EXPOSED = 'Retry-After, Request-Id, RateLimit-Policy, x-amz-apigw-id';
/** A request id of the shape API Gateway gives `extendedRequestId`. */
const REQUEST_ID = /^[A-Za-z0-9+/]{15}=$/;

interface Recorded {
  readonly events: APIGatewayProxyEvent[];
  readonly contexts: Context[];
  readonly authorizations: APIGatewayTokenAuthorizerEvent[];
}

const recording = (functions: LocalFunctions, recorded: Recorded): LocalFunctions => {
  const record =
    (handler: ProxyHandler): ProxyHandler =>
    (event, context) => {
      // A copy: the function's middleware rewrites the event it is given.
      recorded.events.push(structuredClone(event));
      recorded.contexts.push(context);
      return handler(event, context);
    };
  const authorizer: TokenAuthorizerHandler = (event, context) => {
    recorded.authorizations.push(event);
    return functions.authorizer(event, context);
  };
  return {
    authorizer,
    handlers: Object.fromEntries(
      Object.entries(functions.handlers).map(([operationId, handler]) => [operationId, record(handler)]),
    ),
  };
};

let tables: TestTables;
let key: string;
let keyId: string;
let gateway: LocalGateway;
let lines: string[];
let recorded: Recorded;

beforeAll(async () => {
  tables = await createTestTables('gateway-server');
  const generated = generateApiKey('gateway tests');
  key = generated.key;
  keyId = generated.record.keyId;
  await apiKeysOf(tables).put(generated.record);
});
// A gateway of its own for each test (it starts in milliseconds): what starting it runs is part
// of each test, for the mutation run's coverage as for a reader.
beforeEach(async () => {
  lines = [];
  recorded = { events: [], contexts: [], authorizations: [] };
  const functions = localFunctions({
    endpoint: tables.endpoint,
    tables: tables.names,
    logLevel: 'SILENT',
    corsOrigins: [APP],
  });
  gateway = await startLocalGateway({
    port: 0,
    corsOrigins: [APP],
    ...recording(functions, recorded),
    log: (line) => lines.push(line),
    maxPayloadBytes: 64 * 1024,
    staticRoutes: Promise.resolve({
      '/docs': { contentType: 'text/html; charset=utf-8', body: '<h1>Pet store</h1>' },
      '/v1': { contentType: 'text/plain', body: 'never served: inside the stage' },
      '/v1/*': { contentType: 'text/plain', body: 'never served: inside the stage' },
    }),
  });
});
afterEach(() => gateway.close());

const root = () => gateway.baseUrl.replace(/\/v1$/, '');

/**
 * A request as raw HTTP/1.1, for repeated headers fetch would merge or a length it would check;
 * the status and headers of the answer.
 */
const rawRequest = (
  port: number,
  requestLine: string,
  headers: [string, string][],
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> =>
  new Promise((resolve, reject) => {
    const [method = 'GET', path = '/'] = requestLine.split(' ');
    const request = httpRequest(
      { port, host: '127.0.0.1', method, path, headers: [['Host', 'localhost'], ...headers].flat() },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
      },
    );
    request.on('error', reject);
    // With a declared length, the body is never sent: only the declaration can be answered.
    if (headers.some(([name]) => name === 'Content-Length')) request.flushHeaders();
    else request.end();
  });
const withKey = (headers: Record<string, string> = {}) => ({ Authorization: `Bearer ${key}`, ...headers });

describe('the local gateway server', () => {
  it('listens on 127.0.0.1 by default, the stage /v1 its base URL', () => {
    expect(gateway.baseUrl).toBe(`http://127.0.0.1:${gateway.port}/v1`);
  });

  it('serves a static file to GET without a key, outside the stage only', async () => {
    const page = await fetch(`${root()}/docs`);
    const inStage = await fetch(`${gateway.baseUrl}`);
    const api = await fetch(`${gateway.baseUrl}/pets?limit=1`, { headers: withKey() });
    const posted = await fetch(`${root()}/docs`, { method: 'POST' });

    expect([page.status, await page.text()]).toEqual([200, '<h1>Pet store</h1>']);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect([inStage.status, posted.status]).toEqual([404, 404]);
    expect([api.status, api.headers.get('content-type')]).toEqual([200, 'application/json']);
  });

  it('answers a path it has no resource for with 404 NOT_FOUND, before the authorizer, pointing to /docs', async () => {
    const before = recorded.authorizations.length;

    const response = await fetch(`${gateway.baseUrl}/owners`, { headers: { Origin: APP } });
    const others = await Promise.all(
      [`${root()}/`, gateway.baseUrl, `${gateway.baseUrl}/`].map((url) => fetch(url)),
    );

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      code: 'NOT_FOUND',
      message: "No such resource: the API's paths are listed at /docs",
      status: 404,
      requestId: response.headers.get('x-amz-apigw-id'),
    });
    // The root and the stage itself, where a newcomer's first request goes, alike.
    for (const other of others) {
      expect([other.status, other.headers.get('content-type'), await other.json()]).toEqual([
        404,
        'application/json',
        expect.objectContaining({
          code: 'NOT_FOUND',
          message: "No such resource: the API's paths are listed at /docs",
        }),
      ]);
    }
    expect(response.headers.get('x-amz-apigw-id')).toMatch(REQUEST_ID);
    // The stage allows one origin: a gateway response names it, fixed.
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(recorded.authorizations.length).toBe(before);
  });

  it('answers a preflight itself, without a key: 204, no body, no Content-Type, the CORS headers', async () => {
    const response = await fetch(`${gateway.baseUrl}/pets/3`, {
      method: 'OPTIONS',
      headers: { Origin: APP },
    });

    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': allowedMethods('/pets/{petId}').join(', '),
      'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match',
      'access-control-max-age': '7200',
      vary: 'Origin',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    expect(response.headers.get('content-type')).toBeNull();
    expect(response.headers.get('x-amz-apigw-id')).toMatch(REQUEST_ID);
  });

  it('gives a request that sends Origin twice no CORS header', async () => {
    const raw = await rawRequest(gateway.port, 'OPTIONS /v1/pets', [
      ['Origin', APP],
      ['Origin', APP],
    ]);
    const once = await rawRequest(gateway.port, 'OPTIONS /v1/pets', [['Origin', APP]]);

    expect(raw.status).toBe(204);
    expect(raw.headers['access-control-allow-origin']).toBeUndefined();
    expect(once.headers['access-control-allow-origin']).toBe(APP);
  });

  it('gives an Origin holding a list of origins no CORS header, whatever origins are allowed', async () => {
    const any = await startLocalGateway({
      port: 0,
      corsOrigins: ['*'],
      ...recording(
        localFunctions({ endpoint: tables.endpoint, tables: tables.names, logLevel: 'SILENT' }),
        recorded,
      ),
    });
    try {
      const answers = await Promise.all(
        [`${APP}, http://b.example`, `${APP} http://b.example`].map((origin) =>
          rawRequest(any.port, 'OPTIONS /v1/pets', [['Origin', origin]]),
        ),
      );
      const single = await rawRequest(any.port, 'OPTIONS /v1/pets', [['Origin', 'http://b.example']]);

      expect(answers.map((answer) => answer.headers['access-control-allow-origin'])).toEqual([
        undefined,
        undefined,
      ]);
      expect(single.headers['access-control-allow-origin']).toBe('http://b.example');
    } finally {
      await any.close();
    }
  });

  it('asks the authorizer with the method ARN of the route, then answers another method with 405', async () => {
    const anonymous = await fetch(`${gateway.baseUrl}/pets`, { method: 'DELETE' });
    const response = await fetch(`${gateway.baseUrl}/pets`, {
      method: 'DELETE',
      headers: withKey({ Origin: APP }),
    });

    expect(anonymous.status).toBe(401);
    expect(response.status).toBe(405);
    expect(await response.json()).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      message: 'Method not allowed; this resource accepts GET, POST',
    });
    expect(Object.fromEntries(response.headers)).toMatchObject({
      allow: 'GET, POST',
      'access-control-allow-origin': APP,
      'access-control-expose-headers': EXPOSED,
      vary: 'Origin',
    });
    expect(recorded.authorizations.at(-1)).toEqual({
      type: 'TOKEN',
      authorizationToken: `Bearer ${key}`,
      methodArn: 'arn:aws:execute-api:local:000000000000:local/v1/DELETE/pets',
    });
  });

  it('gives a 405 to an origin it does not allow without CORS headers', async () => {
    const response = await fetch(`${gateway.baseUrl}/pets/3`, {
      method: 'POST',
      headers: withKey({ Origin: 'https://evil.example' }),
    });

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allowedMethods('/pets/{petId}').join(', '));
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("calls the function with API Gateway's proxy event: route, parameters, headers, query, caller", async () => {
    const response = await fetch(`${gateway.baseUrl}/pets/424242?x=1&x=2`, {
      headers: withKey({ 'X-Trace': 'abc' }),
    });
    const event = recorded.events.at(-1) as APIGatewayProxyEvent;
    const context = recorded.contexts.at(-1) as Context;

    // getPet reads no query parameter: the function refuses `x` (API Gateway passes it on).
    expect(response.status).toBe(400);
    expect(event).toMatchObject({
      httpMethod: 'GET',
      path: '/pets/424242',
      resource: '/pets/{petId}',
      pathParameters: { petId: '424242' },
      queryStringParameters: { x: '2' },
      multiValueQueryStringParameters: { x: ['1', '2'] },
      body: null,
      requestContext: {
        extendedRequestId: response.headers.get('x-amz-apigw-id'),
        authorizer: { principalId: keyId, keyId, keyName: 'gateway tests' },
        identity: { sourceIp: '127.0.0.1' },
        protocol: 'HTTP/1.1',
      },
    });
    expect(event.headers['X-Trace']).toBe('abc');
    expect(context.functionName).toBe('getPet');
    // The stack's function timeout: 15 s.
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(15_000);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(13_000);
  });

  it("passes the function's answer on as it is, with the request id, and its body as text", async () => {
    const response = await fetch(`${gateway.baseUrl}/pets`, {
      method: 'POST',
      headers: withKey({ 'Content-Type': 'application/json', Origin: APP }),
      body: JSON.stringify({ name: 'Gateway', categoryId: 2 }),
    });
    const event = recorded.events.at(-1) as APIGatewayProxyEvent;

    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: 'Gateway', categoryId: 2, status: 'available' });
    expect(event.body).toBe('{"name":"Gateway","categoryId":2}');
    expect(response.headers.get('location')).toMatch(/^\/v1\/pets\/\d+$/);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('x-amz-apigw-id')).toBe(event.requestContext.extendedRequestId);
  });

  it('refuses a body over its payload limit with 413 before the function runs', async () => {
    const before = recorded.events.length;

    const response = await fetch(`${gateway.baseUrl}/pets`, {
      method: 'POST',
      headers: withKey({ 'Content-Type': 'application/json' }),
      body: 'x'.repeat(64 * 1024 + 1),
    });

    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Request is too large',
    });
    expect(recorded.events.length).toBe(before);
  });

  it('logs one line per request: method, path without its query, status, time and request id', async () => {
    const response = await fetch(`${gateway.baseUrl}/pets?limit=1&key=secret`, { headers: withKey() });
    const { requestId } = (await response.json()) as { requestId: string };

    // The line is written once the answer has gone.
    await vi.waitFor(() => expect(lines.at(-1)).toMatch(/^GET \/v1\/pets 400 \d+\.\dms [A-Za-z0-9+/]{15}=$/));
    expect(lines.at(-1)?.endsWith(` ${requestId}`)).toBe(true);
    expect(lines.join('\n')).not.toContain('secret');
    expect(Number(/ (\d+\.\d)ms /.exec(lines.at(-1) ?? '')?.[1])).toBeLessThan(10_000);
  });

  it('answers malformed HTTP with a 400 Error object, and keeps serving', async () => {
    const socket = connect(gateway.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      raw += chunk;
    });
    await once(socket, 'end');

    const [head = '', body] = raw.split('\r\n\r\n');
    const requestId = (JSON.parse(body ?? '') as { requestId: string }).requestId;
    expect(head.split('\r\n')).toEqual([
      'HTTP/1.1 400 Bad Request',
      'Content-Type: application/json',
      'X-Content-Type-Options: nosniff',
      'Cache-Control: no-store',
      `x-amz-apigw-id: ${requestId}`,
      `Request-Id: ${requestId}`,
      `Content-Length: ${Buffer.byteLength(body ?? '')}`,
      'Connection: close',
    ]);
    expect(requestId).toMatch(REQUEST_ID);
    expect(JSON.parse(body ?? '')).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'Malformed HTTP request',
      status: 400,
      requestId,
    });
    expect(lines).toContain(`- - 400 (HPE_INVALID_HEADER_TOKEN) ${requestId}`);
    expect((await fetch(`${root()}/docs`)).status).toBe(200);
  });
});

/** What a connection that sends `text` gets back, to the end: the status, the headers (lower case), the body. */
const exchange = async (port: number, text: string): Promise<RawAnswer> =>
  firstAnswer(await rawExchange(port, text));

/** The Error object with the headers of every answer, `status` the HTTP status, the request id in both. */
const errorAnswer = (answer: RawAnswer) => {
  const body = JSON.parse(answer.body) as { code: string; status: number; requestId: string };
  return {
    status: answer.status,
    code: body.code,
    sameStatus: body.status === answer.status,
    contentType: answer.headers['content-type'],
    nosniff: answer.headers['x-content-type-options'],
    cacheControl: answer.headers['cache-control'],
    requestId: body.requestId === answer.headers['x-amz-apigw-id'] && REQUEST_ID.test(body.requestId),
  };
};
const expectedError = (status: number, code: string) => ({
  status,
  code,
  sameStatus: true,
  contentType: 'application/json',
  nosniff: 'nosniff',
  cacheControl: 'no-store',
  requestId: true,
});

describe("the local gateway's answers to what Node's HTTP server would refuse on its own", () => {
  it.each([
    [
      'a request line of HTTP/2.0',
      'GET /v1/pets HTTP/2.0\r\nHost: x\r\n\r\n',
      505,
      'HTTP_VERSION_NOT_SUPPORTED',
    ],
    [
      'a request line of HTTP/0.9',
      'GET /v1/pets HTTP/0.9\r\nHost: x\r\n\r\n',
      505,
      'HTTP_VERSION_NOT_SUPPORTED',
    ],
    [
      'a version Node cannot read (HTTP/9.9)',
      'GET /v1/pets HTTP/9.9\r\nHost: x\r\n\r\n',
      505,
      'HTTP_VERSION_NOT_SUPPORTED',
    ],
    [
      'a request line ending in a bare LF',
      'GET /v1/pets HTTP/1.1\nHost: x\r\n\r\n',
      400,
      'VALIDATION_FAILED',
    ],
    ['a space after the version', 'GET /v1/pets HTTP/1.1 \r\nHost: x\r\n\r\n', 400, 'VALIDATION_FAILED'],
    [
      'a version of three digits (HTTP/1.10)',
      'GET /v1/pets HTTP/1.10\r\nHost: x\r\n\r\n',
      400,
      'VALIDATION_FAILED',
    ],
    ['an HTTP/1.1 request without Host', 'GET /v1/pets HTTP/1.1\r\n\r\n', 400, 'VALIDATION_FAILED'],
    ['two Host headers', 'GET /v1/pets HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400, 'VALIDATION_FAILED'],
    [
      'an Expect other than 100-continue',
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nContent-Length: 2\r\n\r\n{}',
      417,
      'EXPECTATION_FAILED',
    ],
    [
      'CONNECT to a host',
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      404,
      'NOT_FOUND',
    ],
    [
      'CONNECT to a resource, without a key',
      'CONNECT /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n',
      401,
      'UNAUTHORIZED',
    ],
    ['a method Node does not know', 'FOO /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'VALIDATION_FAILED'],
    ['a request line without HTTP', 'GET /v1/pets FTP/1.1\r\nHost: x\r\n\r\n', 400, 'VALIDATION_FAILED'],
    [
      'a header line without a colon',
      'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      400,
      'VALIDATION_FAILED',
    ],
    [
      'a body both chunked and of a declared length',
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'VALIDATION_FAILED',
    ],
    [
      // RFC 9112, 6.1: a transfer coding the server does not understand is a 501.
      'a transfer coding other than chunked',
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      501,
      'NOT_IMPLEMENTED',
    ],
    [
      // 2 bytes of name and value a line, 6 with ": " and CRLF: the header section as sent is counted.
      'a header section over 16 KiB whose names and values alone are not',
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${'a: b\r\n'.repeat(2_800)}\r\n`,
      431,
      'HEADERS_TOO_LARGE',
    ],
    [
      'headers larger than Node takes',
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'HEADERS_TOO_LARGE',
    ],
  ])('answers %s with the Error object, and goes on serving', async (_, text, status, code) => {
    const answer = await exchange(gateway.port, text);

    expect(errorAnswer(answer)).toEqual(expectedError(status, code));
    expect((await fetch(`${gateway.baseUrl}/pets?limit=1`, { headers: withKey() })).status).toBe(200);
  });

  it('serves a request line and headers of 16 KiB as sent, each line with its CRLF, and answers one byte more with 431', async () => {
    /** A request whose line and header lines are `bytes` long, then the empty line that ends them. */
    const request = (bytes: number) => {
      const start = `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\nX-Fill: `;
      const lines = `${start}${'a'.repeat(bytes - start.length - 2)}\r\n`;
      expect(Buffer.byteLength(lines)).toBe(bytes);
      return `${lines}\r\n`;
    };

    const taken = await exchange(gateway.port, request(16 * 1024));
    const refused = await exchange(gateway.port, request(16 * 1024 + 1));

    expect(taken.status).toBe(200);
    expect(errorAnswer(refused)).toEqual(expectedError(431, 'HEADERS_TOO_LARGE'));
  });

  it('reads every header however many there are: a second Authorization after 2,000 others is refused', async () => {
    // Short ones, so that all of them fit Node's 16 KiB of headers.
    const fillers = 'a: b\r\n'.repeat(1_998);
    const headers = `Host: x\r\nAuthorization: Bearer ${key}\r\n${fillers}Authorization: Bearer bogus\r\n`;

    const answer = await exchange(
      gateway.port,
      `GET /v1/pets HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`,
    );

    expect(errorAnswer(answer)).toEqual(expectedError(401, 'UNAUTHORIZED'));
    expect(recorded.authorizations).toEqual([]);
    expect(recorded.events).toEqual([]);
  });

  it('answers more headers than it reads in full with 431, never a request short of some', async () => {
    const fillers = Array.from({ length: 4_000 }, (_, index) => `X-${index}: a\r\n`).join('');

    const answer = await exchange(gateway.port, `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${fillers}\r\n`);

    expect(errorAnswer(answer)).toEqual(expectedError(431, 'HEADERS_TOO_LARGE'));
    expect(recorded.authorizations).toEqual([]);
  });

  it('answers a malformed chunked body as its request, with one log line and no 500', async () => {
    const answer = await exchange(
      gateway.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    const { requestId } = JSON.parse(answer.body) as { requestId: string };

    expect(errorAnswer(answer)).toEqual(expectedError(400, 'VALIDATION_FAILED'));
    expect(answer.headers.connection).toBe('close');
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    // A request id may hold `+` and `/` (base64): taken literally, not as a pattern.
    const literalId = requestId.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    expect(lines[0]).toMatch(new RegExp(`^POST /v1/pets 400 \\d+\\.\\dms ${literalId}$`));
    expect(recorded.events).toEqual([]);
  });

  it("answers CONNECT to a resource with a key with the Error object: 403, since a verb API Gateway has no method for is in no key's scopes", async () => {
    const answer = await exchange(
      gateway.port,
      `CONNECT /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`,
    );

    expect(errorAnswer(answer)).toEqual(expectedError(403, 'FORBIDDEN'));
  });

  describe('a client too slow for its timeouts, scaled down from a minute and five', () => {
    // Scaled: 300 ms for the headers, 600 ms for the whole request. The server's own check interval
    // is kept: were it Node's default (30 s), no answer would come within the test's time.
    const timeouts = { headersTimeoutMs: 300, requestTimeoutMs: 600 };
    let slow: LocalGateway;
    beforeEach(async () => {
      slow = await startLocalGateway({
        port: 0,
        ...localFunctions({ endpoint: tables.endpoint, tables: tables.names, logLevel: 'SILENT' }),
        timeouts,
      });
    });
    afterEach(() => slow.close());

    /** The answer to `text` sent on a new connection, and the milliseconds from sending it to the answer's end. */
    const timed = async (text: string) => {
      const sent = performance.now();
      const answer = await exchange(slow.port, text);
      return { answer, afterMs: performance.now() - sent };
    };

    it('answers headers that never end with a 408 Error object, not before their timeout', async () => {
      const { answer, afterMs } = await timed('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');

      expect(errorAnswer(answer)).toEqual(expectedError(408, 'REQUEST_TIMEOUT'));
      expect(afterMs).toBeGreaterThanOrEqual(timeouts.headersTimeoutMs);
    });

    it('answers a body that never ends with a 408 Error object as its request, not before the request timeout', async () => {
      const { answer, afterMs } = await timed(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"na`,
      );

      expect(errorAnswer(answer)).toEqual(expectedError(408, 'REQUEST_TIMEOUT'));
      expect(afterMs).toBeGreaterThanOrEqual(timeouts.requestTimeoutMs);
    });
  });
});

describe('the local gateway when a step fails', () => {
  const allowAll: TokenAuthorizerHandler = async () => ({
    principalId: 'key-test',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
    },
  });
  const answer: ProxyHandler = async () => ({ statusCode: 200, body: '[]' });
  const start = (options: Partial<Parameters<typeof startLocalGateway>[0]>) =>
    startLocalGateway({
      port: 0,
      authorizer: allowAll,
      handlers: everyOperation(answer),
      ...options,
    });

  it('answers 500 INTERNAL_ERROR and logs why when something of its own fails', async () => {
    const logged: string[] = [];
    const unrendered = Promise.reject(new Error('the reference could not be rendered'));
    unrendered.catch(() => undefined);
    const failing = await start({ log: (line) => logged.push(line), staticRoutes: unrendered });
    try {
      const response = await fetch(`${failing.baseUrl.replace(/\/v1$/, '')}/docs`, {
        headers: { Origin: APP },
      });

      expect(response.status).toBe(500);
      expect(await response.json()).toMatchObject({
        code: 'INTERNAL_ERROR',
        message: 'An internal error occurred',
      });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(logged[0]).toMatch(/^gateway error: the reference could not be rendered [A-Za-z0-9+/]{15}=$/);
    } finally {
      await failing.close();
    }
  });

  it('answers 500 INTERNAL_ERROR when the function throws, and also when no log is given for a failure of its own', async () => {
    const throwing = await start({
      handlers: {
        ...everyOperation(answer),
        listPets: async () => {
          throw new Error('secret internals');
        },
      },
    });
    const unrendered = Promise.reject(new Error('not rendered'));
    unrendered.catch(() => undefined);
    const silent = await start({ staticRoutes: unrendered });
    try {
      const failed = await fetch(`${throwing.baseUrl}/pets`, { headers: { Authorization: 'Bearer any' } });
      const own = await fetch(`${silent.baseUrl.replace(/\/v1$/, '')}/docs`);

      expect(failed.status).toBe(500);
      expect(await failed.json()).toMatchObject({
        code: 'INTERNAL_ERROR',
        message: 'An internal error occurred',
      });
      expect(own.status).toBe(500);
    } finally {
      await Promise.all([throwing.close(), silent.close()]);
    }
  });

  it('logs a function that throws as its request only: an integration failure is no error of its own', async () => {
    const logged: string[] = [];
    const throwing = await start({
      log: (line) => logged.push(line),
      handlers: {
        ...everyOperation(answer),
        listPets: async () => {
          throw new Error('secret internals');
        },
      },
    });
    try {
      const failed = await fetch(`${throwing.baseUrl}/pets`, { headers: { Authorization: 'Bearer any' } });

      expect(failed.status).toBe(500);
      await vi.waitFor(() => expect(logged).toHaveLength(1));
      expect(logged[0]).toMatch(/^GET \/v1\/pets 500 \d+\.\dms [A-Za-z0-9+/]{15}=$/);
    } finally {
      await throwing.close();
    }
  });

  it("gives the function the caller's address as its source IP", async () => {
    const sourceIps: string[] = [];
    const server = await start({
      handlers: {
        ...everyOperation(answer),
        listPets: async (event) => {
          sourceIps.push(event.requestContext.identity.sourceIp);
          return { statusCode: 200, body: '[]' };
        },
      },
    });
    try {
      // Another loopback address than the server's own, so the caller's address is not 127.0.0.1.
      const status = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port: server.port,
            localAddress: '127.0.0.2',
            path: '/v1/pets',
            headers: { Authorization: 'Bearer any' },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });

      expect(status).toBe(200);
      expect(sourceIps).toEqual(['127.0.0.2']);
    } finally {
      await server.close();
    }
  });

  it("gives each function the Lambda timeout it is told, and refuses API Gateway's 10 MB past it", async () => {
    const remaining: number[] = [];
    const timed: ProxyHandler = async (_event, context) => {
      remaining.push(context.getRemainingTimeInMillis());
      return { statusCode: 200, body: '[]' };
    };
    const server = await start({
      functionTimeoutMs: 3_000,
      handlers: everyOperation(timed),
    });
    try {
      await fetch(`${server.baseUrl}/pets`, { headers: { Authorization: 'Bearer any' } });
      // Declared, not sent: the gateway answers from the declaration alone.
      const tooLarge = await rawRequest(server.port, 'POST /v1/pets', [
        ['Authorization', 'Bearer any'],
        ['Content-Length', String(10 * 1024 * 1024 + 1)],
      ]);
      const atLimit = await rawRequest(server.port, 'POST /v1/pets', [
        ['Authorization', 'Bearer any'],
        ['Content-Length', '0'],
      ]);

      expect(remaining[0]).toBeLessThanOrEqual(3_000);
      expect(remaining[0]).toBeGreaterThan(2_000);
      expect(tooLarge.status).toBe(413);
      expect(atLimit.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('stops answering once closed', async () => {
    const server = await start({});

    await server.close();

    await expect(fetch(`${server.baseUrl}/pets`)).rejects.toThrow();
  });

  it('runs requests in turn beyond its concurrency', async () => {
    let running = 0;
    let most = 0;
    const slow: ProxyHandler = async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      return { statusCode: 200, body: '[]' };
    };
    const serial = await start({
      concurrency: 1,
      handlers: everyOperation(slow),
    });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 4 }, () =>
          fetch(`${serial.baseUrl}/pets`, { headers: { Authorization: 'Bearer any' } }).then((r) => r.status),
        ),
      );

      expect(statuses).toEqual([200, 200, 200, 200]);
      expect(most).toBe(1);
    } finally {
      await serial.close();
    }
  });

  it('answers a request still waiting for its turn at its deadline 503 with Retry-After, without running it', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ran: string[] = [];
    const holding: ProxyHandler = async (event) => {
      ran.push(event.path);
      await held;
      return { statusCode: 200, body: '[]' };
    };
    const serial = await start({ concurrency: 1, handlers: everyOperation(holding) });
    try {
      const first = fetch(`${serial.baseUrl}/pets`, { headers: { Authorization: 'Bearer any' } });
      await vi.waitFor(() => expect(ran).toEqual(['/pets']));
      const sent = Date.now();
      const queued = await fetch(`${serial.baseUrl}/pets/7`, { headers: { Authorization: 'Bearer any' } });
      const waited = Date.now() - sent;
      release();

      expect(queued.status).toBe(503);
      expect(await queued.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(queued.headers.get('retry-after')).toBe('1');
      // Answered at its deadline, 3 s after it arrived, not once its turn came.
      expect(waited).toBeGreaterThanOrEqual(REQUEST_BUDGET_MS - 10);
      expect((await first).status).toBe(200);
      expect(ran).toEqual(['/pets']);
    } finally {
      release();
      await serial.close();
    }
  });

  it('fails to start on a port that is taken', async () => {
    await expect(start({ port: gateway.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
