import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { methodNotAllowed } from '#shared/http/gateway-behaviour';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import { headerPairs, readBody, sendRefusal, sendResult, valuesOf } from '#tools/local/http-io';

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

/** A server on a free loopback port that answers every request with `respond`; its base URL. */
const serve = async (respond: Respond): Promise<string> => {
  const server = createServer((request, response) => {
    Promise.resolve()
      .then(() => respond(request, response))
      .catch((error: unknown) => {
        response.writeHead(599).end(error instanceof GatewayRefusal ? error.code : String(error));
      });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closeServer = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
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

    expect(await reading).toBe('The request ended before its body');
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
