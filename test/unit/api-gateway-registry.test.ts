import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIGatewayClient, ConflictException } from '@aws-sdk/client-api-gateway';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiGatewayRegistry, UsagePlanNotFoundError } from '#tools/keys/api-gateway-registry';

/**
 * The registry's calls as API Gateway receives them: the real SDK client, pointed at a loopback
 * server that records each request and answers as API Gateway's REST API does (JSON bodies, errors
 * by `x-amzn-ErrorType`). Nothing reaches AWS.
 */

interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly authorization: string | undefined;
}

type Answer = { status: number; body?: unknown; error?: string };

let server: Server;
let recorded: Recorded[] = [];
/** Answers by `METHOD path`, first match wins; unknown requests get a 500. */
let answers: [RegExp, Answer | (() => Answer)][] = [];

const read = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => resolve(text));
  });

let registry: ApiGatewayRegistry;
let client: APIGatewayClient;
beforeAll(async () => {
  server = createServer(async (request, response) => {
    const text = await read(request);
    const line = `${request.method} ${request.url}`;
    recorded.push({
      method: request.method ?? '',
      path: request.url ?? '',
      body: text ? JSON.parse(text) : undefined,
      authorization: request.headers.authorization,
    });
    const found = answers.find(([pattern]) => pattern.test(line))?.[1];
    const answer =
      typeof found === 'function'
        ? found()
        : (found ?? { status: 500, error: 'ServiceUnavailableException' });
    response.writeHead(answer.status, {
      'Content-Type': 'application/json',
      ...(answer.error ? { 'x-amzn-ErrorType': answer.error } : {}),
    });
    response.end(JSON.stringify(answer.body ?? (answer.error ? { message: `${answer.error} here` } : {})));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  client = new APIGatewayClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await new Promise<void>((closed) => server.close(() => closed()));
});
afterEach(() => {
  recorded = [];
  answers = [];
});

const USAGE_PLANS: [RegExp, Answer][] = [
  [
    /^GET \/usageplans$/,
    { status: 200, body: { item: [{ id: 'other1', name: 'SomethingElse' }], position: 'page2' } },
  ],
  [
    /^GET \/usageplans\?position=page2$/,
    {
      status: 200,
      body: {
        item: [
          { id: 'up-standard', name: 'PetStore-staging-standard' },
          { id: 'up-partner', name: 'PetStore-staging-partner' },
        ],
      },
    },
  ],
];

const fresh = () => {
  registry = new ApiGatewayRegistry({ client, stackName: 'PetStore-staging', region: 'eu-west-1' });
  return registry;
};

describe('usage identifiers in API Gateway', () => {
  it('are API keys named after the stack and the key, enabled, with a value of 64 random hex digits', async () => {
    answers = [[/^POST \/apikeys$/, { status: 201, body: { id: 'k1a2b3', enabled: true } }]];

    const identifier = await fresh().createIdentifier('key-0123456789ab');

    expect(recorded).toHaveLength(1);
    const [request] = recorded;
    expect(request?.body).toEqual({
      name: 'PetStore-staging/key-0123456789ab',
      description: expect.stringContaining('key-0123456789ab'),
      enabled: true,
      value: identifier.value,
    });
    expect(identifier).toEqual({ id: 'k1a2b3', value: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(request?.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/apigateway\//,
    );
  });

  it("go into a plan's usage plan, found by its name across pages of usage plans, looked up once", async () => {
    answers = [
      ...USAGE_PLANS,
      [/^POST \/usageplans\/up-\w+\/keys$/, { status: 201, body: { id: 'k1a2b3' } }],
    ];
    const registry = fresh();

    await registry.addToPlan('k1a2b3', 'partner');
    await registry.addToPlan('k9', 'standard');

    expect(recorded.map(({ method, path, body }) => [method, path, body])).toEqual([
      ['GET', '/usageplans', undefined],
      ['GET', '/usageplans?position=page2', undefined],
      ['POST', '/usageplans/up-partner/keys', { keyId: 'k1a2b3', keyType: 'API_KEY' }],
      ['POST', '/usageplans/up-standard/keys', { keyId: 'k9', keyType: 'API_KEY' }],
    ]);
  });

  it('count as in a usage plan when API Gateway says they already are', async () => {
    answers = [
      ...USAGE_PLANS,
      [/^POST \/usageplans\/up-standard\/keys$/, { status: 409, error: 'ConflictException' }],
      [/^GET \/usageplans\/up-standard\/keys\/k1$/, { status: 200, body: { id: 'k1', type: 'API_KEY' } }],
    ];

    await expect(fresh().addToPlan('k1', 'standard')).resolves.toBeUndefined();
  });

  it('are refused a usage plan while they are in another one of the stage, which fails the call', async () => {
    answers = [
      ...USAGE_PLANS,
      [/^POST \/usageplans\/up-standard\/keys$/, { status: 409, error: 'ConflictException' }],
      [/^GET \/usageplans\/up-standard\/keys\/k1$/, { status: 404, error: 'NotFoundException' }],
    ];

    await expect(fresh().addToPlan('k1', 'standard')).rejects.toBeInstanceOf(ConflictException);
  });

  it('leave a usage plan, and leaving one they are not in is done already', async () => {
    answers = [
      ...USAGE_PLANS,
      [/^DELETE \/usageplans\/up-standard\/keys\/k1$/, { status: 202 }],
      [/^DELETE \/usageplans\/up-partner\/keys\/k1$/, { status: 404, error: 'NotFoundException' }],
    ];
    const registry = fresh();

    await registry.removeFromPlan('k1', 'standard');
    await registry.removeFromPlan('k1', 'partner');

    expect(recorded.filter(({ method }) => method === 'DELETE').map(({ path }) => path)).toEqual([
      '/usageplans/up-standard/keys/k1',
      '/usageplans/up-partner/keys/k1',
    ]);
  });

  it('are deleted, a missing one counting as deleted, and any other failure passing through', async () => {
    answers = [
      [/^DELETE \/apikeys\/k1$/, { status: 202 }],
      [/^DELETE \/apikeys\/gone$/, { status: 404, error: 'NotFoundException' }],
      [/^DELETE \/apikeys\/busy$/, { status: 429, error: 'TooManyRequestsException' }],
    ];
    const registry = fresh();

    await registry.deleteIdentifier('k1');
    await registry.deleteIdentifier('gone');
    await expect(registry.deleteIdentifier('busy')).rejects.toMatchObject({
      name: 'TooManyRequestsException',
    });
  });

  it('fail on a plan whose usage plan the stack does not have, saying to deploy it', async () => {
    answers = [...USAGE_PLANS];

    await expect(fresh().addToPlan('k1', 'trial')).rejects.toThrow(UsagePlanNotFoundError);
    await expect(fresh().addToPlan('k1', 'trial')).rejects.toThrow(
      'No usage plan PetStore-staging-trial in this account and region: deploy PetStore-staging first',
    );
  });

  it('can be deleted by hand with the command it gives', () => {
    expect(fresh().deleteCommand('k1')).toBe('aws apigateway delete-api-key --api-key k1 --region eu-west-1');
  });
});
