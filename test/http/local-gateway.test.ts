import { request } from 'node:http';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { authorizerHandler } from '#functions/authorizer';
import { SCOPE_RESOURCES } from '#functions/operations';
import { StoreUnavailableError } from '#shared/domain/errors';
import type { ProxyHandler, TokenAuthorizerHandler } from '#shared/lambda';
import { createLogger } from '#shared/observability/logger';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { type LocalGateway, startLocalGateway } from '#tools/local/gateway';
import { everyOperation } from '../support/every-operation';
import { rawExchange } from '../support/network';
import { TEST_PLANS } from '../support/plans';

/**
 * The local gateway's own answers, in the situations the real functions never produce: an
 * authorizer that denies or fails, a function that throws or answers nonsense. The functions here
 * are stand-ins on purpose; what is under test is the gateway, which must answer as API Gateway
 * does, with the Error object.
 */

const policy = (effect: 'Allow' | 'Deny', resource: string): APIGatewayAuthorizerResult => ({
  principalId: 'key-test',
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
  },
});

const ok: ProxyHandler = async () => ({ statusCode: 200, body: '[]' });
const handlers = (handler: ProxyHandler = ok) => everyOperation(handler);

let gateway: LocalGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const serve = async (authorizer: TokenAuthorizerHandler, handler?: ProxyHandler) => {
  gateway = await startLocalGateway({ port: 0, handlers: handlers(handler), authorizer });
  return fetch(`${gateway.baseUrl}/pets`, { headers: { Authorization: 'Bearer psk_any' } });
};

const expectGatewayError = async (response: Response, status: number, code: string) => {
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ code, status });
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('cache-control')).toBe('no-store');
};

describe('the local gateway', () => {
  it("answers 403 FORBIDDEN, API Gateway's ACCESS_DENIED, when the authorizer returns a Deny", async () => {
    const response = await serve(async () => policy('Deny', 'arn:aws:execute-api:*'));

    await expectGatewayError(response, 403, 'FORBIDDEN');
  });

  it('answers a 5,000-character bearer token 401 UNAUTHORIZED without invoking the authorizer, as the identity validation expression does in API Gateway', async () => {
    let invocations = 0;
    gateway = await startLocalGateway({
      port: 0,
      handlers: handlers(),
      authorizer: async () => {
        invocations += 1;
        return policy('Allow', 'arn:aws:execute-api:local:000000000000:local/v1/*/*');
      },
    });

    const response = await fetch(`${gateway.baseUrl}/pets`, {
      headers: { Authorization: `Bearer psk_${'A'.repeat(4_996)}` },
    });

    await expectGatewayError(response, 401, 'UNAUTHORIZED');
    expect(invocations).toBe(0);
  });

  it('answers 403 FORBIDDEN when the Allow does not cover the route called', async () => {
    const response = await serve(async () =>
      policy('Allow', 'arn:aws:execute-api:local:000000000000:local/v1/GET/other'),
    );

    await expectGatewayError(response, 403, 'FORBIDDEN');
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the key store fails inside the authorizer', async () => {
    const failingKeys = {
      findByHash: async () =>
        Promise.reject(new StoreUnavailableError('DynamoDB GetItem failed: TimeoutError')),
    } as unknown as ApiKeyRepository;

    const response = await serve(
      authorizerHandler({
        apiKeys: failingKeys,
        logger: createLogger({ logLevel: 'SILENT' }),
        plans: TEST_PLANS,
        scopes: SCOPE_RESOURCES,
      }),
    );

    await expectGatewayError(response, 503, 'SERVICE_UNAVAILABLE');
    expect(response.headers.get('retry-after')).toBe('1');
  });

  it('answers 500 INTERNAL_ERROR, without details, when the function throws', async () => {
    const response = await serve(
      async () => policy('Allow', 'arn:aws:execute-api:local:000000000000:local/v1/*/*'),
      async () => {
        throw new Error('secret internals');
      },
    );

    await expectGatewayError(response, 500, 'INTERNAL_ERROR');
    expect(response.headers.get('retry-after')).toBeNull();
  });

  it('answers 500 INTERNAL_ERROR when the function returns something that is not a proxy result', async () => {
    const response = await serve(
      async () => policy('Allow', 'arn:aws:execute-api:local:000000000000:local/v1/*/*'),
      (async () => ({ body: 'no status' })) as unknown as ProxyHandler,
    );

    await expectGatewayError(response, 500, 'INTERNAL_ERROR');
  });

  it('gives the authorizer 6 s and the functions 15 s, the Lambda timeouts of the stack', async () => {
    let authorizerMs = 0;
    let functionMs = 0;
    const response = await serve(
      async (_event, context) => {
        authorizerMs = context.getRemainingTimeInMillis();
        return policy('Allow', 'arn:aws:execute-api:local:000000000000:local/v1/*/*');
      },
      async (_event, context) => {
        functionMs = context.getRemainingTimeInMillis();
        return { statusCode: 200, body: '[]' };
      },
    );

    expect(response.status).toBe(200);
    expect(authorizerMs).toBeGreaterThan(5_000);
    expect(authorizerMs).toBeLessThanOrEqual(6_000);
    expect(functionMs).toBeGreaterThan(14_000);
    expect(functionMs).toBeLessThanOrEqual(15_000);
  });
});

/** `path` sent exactly as written (fetch would resolve its dot segments first), with a key. */
const sentAsWritten = (baseUrl: string, method: string, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const { host } = new URL(baseUrl);
    const sent = request(
      {
        host: host.split(':')[0],
        port: Number(host.split(':')[1]),
        method,
        path,
        headers: { Authorization: 'Bearer psk_any' },
      },
      (answer) => {
        let body = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => {
          body += chunk;
        });
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body }));
      },
    );
    sent.on('error', reject);
    sent.end();
  });

describe('the path the local gateway routes', () => {
  it('is the one requested: dot segments, encoded or not, are never resolved to another pet', async () => {
    const called: Pick<APIGatewayProxyEvent, 'httpMethod' | 'resource' | 'pathParameters'>[] = [];
    gateway = await startLocalGateway({
      port: 0,
      handlers: handlers(async (event) => {
        called.push({
          httpMethod: event.httpMethod,
          resource: event.resource,
          pathParameters: event.pathParameters,
        });
        return { statusCode: 200, body: '[]' };
      }),
      authorizer: async () => policy('Allow', 'arn:aws:execute-api:local:000000000000:local/v1/*/*'),
    });
    const base = new URL(gateway.baseUrl).pathname;

    const encoded = await sentAsWritten(gateway.baseUrl, 'DELETE', `${base}/pets/5/%2e%2e/6`);
    const literal = await sentAsWritten(gateway.baseUrl, 'DELETE', `${base}/pets/5/../6`);
    const dot = await sentAsWritten(gateway.baseUrl, 'GET', `${base}/pets/%2e`);

    // No resource has three segments below /pets: API Gateway's answer to a path it does not have.
    for (const answer of [encoded, literal]) {
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(dot.status).toBe(200);
    // The only function called is the one for the pet named `.`, not a listing.
    expect(called).toEqual([
      { httpMethod: 'GET', resource: '/pets/{petId}', pathParameters: { petId: '.' } },
    ]);
  });
});

/** Everything the gateway writes back to `bytes` sent in one write, until it closes the connection. */
const exchange = (port: number, bytes: string) => rawExchange(port, bytes, { encoding: 'latin1' });

describe('pipelined requests', () => {
  it('are answered one answer each, in order: a valid one is run and answered before a malformed one is refused', async () => {
    let calls = 0;
    gateway = await startLocalGateway({
      port: 0,
      handlers: handlers(async () => {
        calls += 1;
        return { statusCode: 200, body: '["first"]' };
      }),
      authorizer: async () => policy('Allow', 'arn:aws:execute-api:local:000000000000:local/v1/*/*'),
    });
    const path = `${new URL(gateway.baseUrl).pathname}/pets`;

    const received = await exchange(
      gateway.port,
      `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer psk_any\r\n\r\nNOT A REQUEST\r\n\r\n`,
    );

    const statusLines = received.match(/^HTTP\/1\.1 \d{3}/gm);
    expect(statusLines).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
    expect(received.indexOf('["first"]')).toBeLessThan(received.indexOf('HTTP/1.1 400'));
    expect(calls).toBe(1);
  });
});
