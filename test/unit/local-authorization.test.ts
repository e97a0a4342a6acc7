import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authorizerHandler } from '#functions/authorizer';
import { SCOPE_RESOURCES } from '#functions/operations';
import { recordFor } from '#shared/auth/api-key';
import { UnauthorizedError } from '#shared/auth/authorize';
import { StoreUnavailableError } from '#shared/domain/errors';
import { AUTHORIZER_OUTCOMES, gatewayResponse } from '#shared/http/gateway-behaviour';
import type { TokenAuthorizerHandler } from '#shared/lambda';
import { createLogger } from '#shared/observability/logger';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { arnMatches, authorizeRequest, CachedDecisions, policyAllows } from '#tools/local/authorization';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import { TEST_PLANS } from '../support/plans';

/**
 * The authorizer step of the local gateway, as API Gateway runs a TOKEN authorizer. The real
 * authorizer is used wherever it can give the answer under test; stand-ins only return what it
 * never does (a Deny, a policy for another route).
 */

const ARN = 'arn:aws:execute-api:local:000000000000:local/v1/GET/pets';
const STAGE = 'arn:aws:execute-api:local:000000000000:local/v1/*/*';

const policy = (...statements: { Effect: string; Resource?: string | string[] }[]) =>
  ({
    principalId: 'key-test',
    policyDocument: {
      Version: '2012-10-17',
      Statement: statements.map((statement) => ({ Action: 'execute-api:Invoke', ...statement })),
    },
  }) as APIGatewayAuthorizerResult;

const KEY = 'psk_local-authorization';
const keysHolding = (...records: ReturnType<typeof recordFor>[]): ApiKeyRepository => ({
  findByHash: async (hash) => records.find((record) => record.keyHash === hash),
  put: async () => undefined,
  putIfAbsent: async (record) => record,
  list: async () => records,
  revoke: async () => false,
  findById: async () => undefined,
  assignPlan: async () => false,
});
const realAuthorizer = (apiKeys: ApiKeyRepository = keysHolding(recordFor(KEY, 'tests'))) =>
  authorizerHandler({
    apiKeys,
    logger: createLogger({ logLevel: 'SILENT' }),
    plans: TEST_PLANS,
    scopes: SCOPE_RESOURCES,
  });

const refusalOf = async (promise: Promise<unknown>): Promise<GatewayRefusal> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayRefusal);
  return error as GatewayRefusal;
};

describe('matching a policy resource with a method ARN', () => {
  it('matches the whole stage with `*` for method and path', () => {
    expect(arnMatches(STAGE, ARN)).toBe(true);
    expect(arnMatches(STAGE, 'arn:aws:execute-api:local:000000000000:local/v1/POST/pets/7')).toBe(true);
    expect(arnMatches('*', ARN)).toBe(true);
  });

  it('matches the whole ARN only, not a part of it', () => {
    expect(arnMatches('arn:aws:execute-api:local:000000000000:local/v1/GET', ARN)).toBe(false);
    expect(arnMatches('local/v1/GET/pets', ARN)).toBe(false);
    expect(arnMatches(ARN, `${ARN}/7`)).toBe(false);
    expect(arnMatches('arn:aws:execute-api:local:000000000000:local/v2/*/*', ARN)).toBe(false);
  });

  it('reads `?` as any one character and takes every other character of the pattern literally', () => {
    expect(arnMatches('arn.aws.execute-api.local.000000000000.local/v1/GET/pets', ARN)).toBe(false);
    expect(arnMatches('arn:aws:execute-api:local:000000000000:local/v1/G?T/pets', ARN)).toBe(true);
    expect(arnMatches('arn:aws:execute-api:local:000000000000:local/v1/G?/pets', ARN)).toBe(false);
    const odd = 'arn:aws:execute-api:local:000000000000:local/v1/GET/(a|b)+[c]{1}$^\\';
    expect(arnMatches(odd, odd)).toBe(true);
    expect(arnMatches(odd, odd.replace('+', 'b'))).toBe(false);
  });

  it('matches each part of the ARN on its own: a wildcard never reaches past a colon', () => {
    expect(arnMatches('arn:aws:execute-api:*:000000000000:local/v1/*', ARN)).toBe(true);
    expect(arnMatches('arn:aws:*:000000000000:local/v1/GET/pets', ARN)).toBe(false);
    expect(arnMatches('arn:aws:execute-api:local:*', ARN)).toBe(false);
  });

  it('matches the path of the resource case-sensitively', () => {
    expect(arnMatches(ARN.replace('/pets', '/Pets'), ARN)).toBe(false);
  });
});

describe('evaluating the policy', () => {
  it('allows when an Allow covers the method ARN', () => {
    expect(policyAllows(policy({ Effect: 'Allow', Resource: STAGE }), ARN)).toBe(true);
    expect(policyAllows(policy({ Effect: 'Allow', Resource: ['arn:other', STAGE] }), ARN)).toBe(true);
  });

  it('denies when a Deny covers it too, whatever the order of the statements', () => {
    expect(
      policyAllows(policy({ Effect: 'Allow', Resource: STAGE }, { Effect: 'Deny', Resource: ARN }), ARN),
    ).toBe(false);
    expect(
      policyAllows(policy({ Effect: 'Deny', Resource: ARN }, { Effect: 'Allow', Resource: STAGE }), ARN),
    ).toBe(false);
  });

  it('allows when the only Deny is for another route', () => {
    expect(
      policyAllows(
        policy({ Effect: 'Allow', Resource: STAGE }, { Effect: 'Deny', Resource: `${ARN}/7` }),
        ARN,
      ),
    ).toBe(true);
  });

  it('denies without an Allow that covers it: another route, no resource, no policy', () => {
    expect(policyAllows(policy({ Effect: 'Allow', Resource: `${ARN}/7` }), ARN)).toBe(false);
    expect(policyAllows(policy({ Effect: 'Deny', Resource: STAGE }), ARN)).toBe(false);
    expect(policyAllows(policy({ Effect: 'Allow' }), ARN)).toBe(false);
    expect(policyAllows(policy(), ARN)).toBe(false);
    expect(policyAllows({ principalId: 'key-test' } as APIGatewayAuthorizerResult, ARN)).toBe(false);
  });

  it('applies a statement only when its Action covers execute-api:Invoke, in any case', () => {
    const statement = (Action: string | string[]) =>
      ({
        principalId: 'key-test',
        policyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action, Resource: STAGE }] },
      }) as APIGatewayAuthorizerResult;

    expect(
      [
        'execute-api:Invoke',
        'EXECUTE-API:invoke',
        'execute-api:*',
        '*',
        ['s3:GetObject', 'execute-api:Inv*'],
      ].map((action) => policyAllows(statement(action), ARN)),
    ).toEqual([true, true, true, true, true]);
    expect(
      ['execute-api:ManageConnections', 's3:*', 'execute-api:Invoke2', []].map((action) =>
        policyAllows(statement(action), ARN),
      ),
    ).toEqual([false, false, false, false]);
  });

  it('takes only the exact Effect "Allow" as an Allow: IAM values are case-sensitive', () => {
    expect(policyAllows(policy({ Effect: 'allow', Resource: ARN }), ARN)).toBe(false);
    expect(policyAllows(policy({ Effect: 'ALLOW', Resource: STAGE }), ARN)).toBe(false);
  });
});

describe('the authorizer step', () => {
  it('calls the authorizer with a TOKEN event and a context of its timeout, and passes an Allow on', async () => {
    const calls: { event: APIGatewayTokenAuthorizerEvent; context: Context }[] = [];
    const real = realAuthorizer();
    const recording: TokenAuthorizerHandler = async (event, context) => {
      calls.push({ event, context });
      return real(event, context);
    };

    const result = await authorizeRequest({
      authorizer: recording,
      tokens: [`Bearer ${KEY}`],
      methodArn: ARN,
      timeoutMs: 6_000,
    });

    expect(result.principalId).toBe(recordFor(KEY, 'tests').keyId);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.event).toEqual({ type: 'TOKEN', authorizationToken: `Bearer ${KEY}`, methodArn: ARN });
    expect(calls[0]?.context.functionName).toBe('authorizer');
    const remaining = calls[0]?.context.getRemainingTimeInMillis() ?? 0;
    expect(remaining).toBeLessThanOrEqual(6_000);
    expect(remaining).toBeGreaterThan(5_000);
  });

  it('refuses with 401 UNAUTHORIZED, without calling the authorizer, when there is no Authorization header', async () => {
    let called = false;
    const authorizer: TokenAuthorizerHandler = async () => {
      called = true;
      return policy({ Effect: 'Allow', Resource: STAGE });
    };

    const refusal = await refusalOf(
      authorizeRequest({ authorizer, tokens: [], methodArn: ARN, timeoutMs: 6_000 }),
    );
    const empty = await refusalOf(
      authorizeRequest({ authorizer, tokens: [''], methodArn: ARN, timeoutMs: 6_000 }),
    );

    expect(called).toBe(false);
    expect([refusal.code, refusal.message]).toEqual([
      'UNAUTHORIZED',
      'A valid API key is required: send "Authorization: Bearer <key>"',
    ]);
    expect(empty.code).toBe('UNAUTHORIZED');
  });

  it('refuses two Authorization headers rather than pick one, even two valid ones', async () => {
    const refusal = await refusalOf(
      authorizeRequest({
        authorizer: realAuthorizer(),
        tokens: [`Bearer ${KEY}`, `Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );

    expect(refusal.code).toBe('UNAUTHORIZED');
  });

  it('answers a key the authorizer refuses with 401 UNAUTHORIZED', async () => {
    const refusal = await refusalOf(
      authorizeRequest({
        authorizer: realAuthorizer(),
        tokens: ['Bearer psk_unknown'],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );

    expect(refusal.code).toBe('UNAUTHORIZED');
    expect(refusal.answer.by).toBe('gateway-response');
  });

  it('answers any other failure of the authorizer with 503 and Retry-After, as API Gateway answers AUTHORIZER_CONFIGURATION_ERROR', async () => {
    const failingKeys: ApiKeyRepository = {
      ...keysHolding(),
      findByHash: () => Promise.reject(new StoreUnavailableError('DynamoDB GetItem failed: TimeoutError')),
    };

    const refusal = await refusalOf(
      authorizeRequest({
        authorizer: realAuthorizer(failingKeys),
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );

    expect([refusal.code, refusal.message]).toEqual([
      'SERVICE_UNAVAILABLE',
      'Authorization is temporarily unavailable; retry shortly',
    ]);
    expect(refusal.answer).toEqual(gatewayResponse('AUTHORIZER_CONFIGURATION_ERROR'));
    expect(refusal.answer.headers['Retry-After']).toBe('1');
  });

  it.each([
    ['an error of another message', () => Promise.reject(new Error('unauthorized'))],
    ['a rejection that is no error', () => Promise.reject('Unauthorized!')],
    ['an answer without a policy', async () => ({ principalId: 'key-test' })],
    ['an answer without a principal', async () => ({ policyDocument: { Statement: [] } })],
    ['no answer at all', async () => undefined],
    ['a rejection with null', () => Promise.reject(null)],
    ['a context of null', async () => ({ ...policy({ Effect: 'Allow', Resource: STAGE }), context: null })],
    [
      'a context that is text',
      async () => ({ ...policy({ Effect: 'Allow', Resource: STAGE }), context: 'plan' }),
    ],
  ])('answers %s as AUTHORIZER_CONFIGURATION_ERROR: 503 with Retry-After', async (_, authorizer) => {
    const refusal = await refusalOf(
      authorizeRequest({
        authorizer: authorizer as unknown as TokenAuthorizerHandler,
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );

    expect(refusal.answer).toEqual(gatewayResponse('AUTHORIZER_CONFIGURATION_ERROR'));
    expect(refusal.answer.status).toBe(503);
  });

  it('answers an authorizer still running at its timeout as AUTHORIZER_CONFIGURATION_ERROR, at the timeout', async () => {
    const started = performance.now();

    const refusal = await refusalOf(
      authorizeRequest({
        authorizer: () => new Promise(() => undefined),
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 200,
      }),
    );

    expect(refusal.answer).toEqual(gatewayResponse('AUTHORIZER_CONFIGURATION_ERROR'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('answers an error whose message is exactly Unauthorized with 401, whoever threw it', async () => {
    const refusal = await refusalOf(
      authorizeRequest({
        authorizer: () => Promise.reject(new Error('Unauthorized')),
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );

    expect(refusal.code).toBe('UNAUTHORIZED');
  });

  it.each(['Basic abc', 'Bearer', 'Bearer a b', 'Bearer\tpsk_x', 'Token psk_x', 'Bearer psk_"x'])(
    'refuses %j with 401 before calling the authorizer, as the identity validation expression does',
    async (header) => {
      let called = false;
      const authorizer: TokenAuthorizerHandler = async () => {
        called = true;
        return policy({ Effect: 'Allow', Resource: STAGE });
      };

      const refusal = await refusalOf(
        authorizeRequest({ authorizer, tokens: [header], methodArn: ARN, timeoutMs: 6_000 }),
      );

      expect(refusal.code).toBe('UNAUTHORIZED');
      expect(called).toBe(false);
    },
  );

  it('refuses a 5,000-character token with 401 before calling the authorizer, as the identity validation expression does', async () => {
    let invocations = 0;
    const authorizer: TokenAuthorizerHandler = async () => {
      invocations += 1;
      return policy({ Effect: 'Allow', Resource: STAGE });
    };

    for (const header of [`Bearer psk_${'A'.repeat(4_996)}`, `Bearer psk_x${'='.repeat(4_995)}`]) {
      const refusal = await refusalOf(
        authorizeRequest({ authorizer, tokens: [header], methodArn: ARN, timeoutMs: 6_000 }),
      );
      expect(refusal.code).toBe('UNAUTHORIZED');
    }
    expect(invocations).toBe(0);
  });

  it('answers an Allow that does not cover the route, or a Deny, with 403 FORBIDDEN as API Gateway does', async () => {
    const forOtherRoute = await refusalOf(
      authorizeRequest({
        authorizer: async () => policy({ Effect: 'Allow', Resource: `${ARN}/7` }),
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );
    const denied = await refusalOf(
      authorizeRequest({
        authorizer: async () => policy({ Effect: 'Deny', Resource: STAGE }),
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );

    expect([forOtherRoute.code, denied.code]).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    expect(denied.answer).toEqual(gatewayResponse(AUTHORIZER_OUTCOMES.deny));
    expect(denied.answer).toMatchObject({ status: 403, by: 'gateway-response' });
  });

  it('refuses as malformed a policy with an element it does not evaluate, rather than reading it as unconditional', async () => {
    const conditional = await refusalOf(
      authorizeRequest({
        authorizer: async () =>
          ({
            principalId: 'key-test',
            policyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Action: 'execute-api:Invoke',
                  Resource: STAGE,
                  Condition: { IpAddress: { 'aws:SourceIp': '192.0.2.0/24' } },
                },
              ],
            },
          }) as APIGatewayAuthorizerResult,
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );

    expect(conditional.answer).toEqual(gatewayResponse(AUTHORIZER_OUTCOMES.malformed));
  });

  it("holds each request to the decision cached for its token: a policy of the route first asked for refuses the token's other routes until the TTL ends", async () => {
    let now = 0;
    const cached = new CachedDecisions(30_000, () => now);
    // An authorizer that allows only the route it is asked about: cache-unsafe, as API Gateway would show.
    const routeOnly: TokenAuthorizerHandler = async (event) =>
      policy({ Effect: 'Allow', Resource: event.methodArn });
    const ask = (methodArn: string) =>
      authorizeRequest({
        authorizer: routeOnly,
        tokens: [`Bearer ${KEY}`],
        methodArn,
        timeoutMs: 6_000,
        cached,
      });
    const POST = ARN.replace('/GET/', '/POST/');

    await expect(ask(ARN)).resolves.toBeDefined();
    expect((await refusalOf(ask(POST))).code).toBe('FORBIDDEN');
    now = 29_999;
    expect((await refusalOf(ask(POST))).code).toBe('FORBIDDEN');
    now = 30_000;
    await expect(ask(POST)).resolves.toBeDefined();
    expect((await refusalOf(ask(ARN))).code).toBe('FORBIDDEN');
  });

  it("lets the real authorizer's policy, cached for a read, refuse the same read-only key's write and allow its other reads", async () => {
    const cached = new CachedDecisions(60_000);
    const reader = realAuthorizer(keysHolding({ ...recordFor(KEY, 'reader'), scopes: ['read:pets'] }));
    const ask = (resource: string) =>
      authorizeRequest({
        authorizer: reader,
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN.replace('GET/pets', resource),
        timeoutMs: 6_000,
        cached,
      });

    await expect(ask('GET/pets')).resolves.toBeDefined();
    expect((await refusalOf(ask('POST/pets'))).code).toBe('FORBIDDEN');
    expect((await refusalOf(ask('DELETE/pets/7'))).code).toBe('FORBIDDEN');
    await expect(ask('GET/pets/7')).resolves.toBeDefined();
  });

  it('answers a thrown UnauthorizedError of any authorizer with 401, not 503', async () => {
    const refusal = await refusalOf(
      authorizeRequest({
        authorizer: async () => {
          throw new UnauthorizedError();
        },
        tokens: [`Bearer ${KEY}`],
        methodArn: ARN,
        timeoutMs: 6_000,
      }),
    );

    expect(refusal.code).toBe('UNAUTHORIZED');
  });
});

describe('a gateway refusal', () => {
  it('carries the code, message and headers of its gateway response, and is answered by a gateway response', () => {
    const refusal = GatewayRefusal.of('THROTTLED');

    expect(refusal).toMatchObject({
      name: 'GatewayRefusal',
      code: 'TOO_MANY_REQUESTS',
      message:
        'Too many requests: slow down to the rate of your plan (RateLimit-Policy) and retry after Retry-After seconds',
    });
    expect(refusal.answer.by).toBe('gateway-response');
    expect(refusal.answer.headers).toEqual({
      'Content-Type': 'application/json',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      'Retry-After': '1',
    });
  });
});
