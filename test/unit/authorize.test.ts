import { describe, expect, it } from 'vitest';
import { SCOPE_RESOURCES } from '#functions/operations';
import type { ApiKeyRecord } from '#shared/auth/api-key';
import { hashApiKey, parseBearerToken, recordFor } from '#shared/auth/api-key';
import { authorize, stageArnOf } from '#shared/auth/authorize';
import { ALL_SCOPES, type Scope } from '#shared/auth/scopes';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { ROOMY_POLICY, TEST_PLANS } from '../support/plans';

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/pets';

/** An in-memory key store: the authorizer's logic is tested here, DynamoDB in the integration tests. */
const keysHolding = (...records: ApiKeyRecord[]): ApiKeyRepository => ({
  findByHash: async (hash) => records.find((record) => record.keyHash === hash),
  put: async () => undefined,
  putIfAbsent: async (record) => record,
  list: async () => records,
  revoke: async () => false,
  findById: async () => undefined,
  assignPlan: async () => false,
});

const STAGE_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1';

/** The method ARNs a key of `scopes` is allowed, as SCOPE_RESOURCES (the stack's PETSTORE_SCOPES) lists them. */
const arnsOf = (...scopes: Scope[]) =>
  scopes.flatMap((scope) => SCOPE_RESOURCES[scope].map((resource) => `${STAGE_ARN}/${resource}`));

describe('stageArnOf', () => {
  it('is the stage the request came through, whatever its method and path', () => {
    expect(stageArnOf(METHOD_ARN)).toBe(STAGE_ARN);
    expect(stageArnOf(`${METHOD_ARN}/42`)).toBe(STAGE_ARN);
  });

  it('fails on something that is not a method ARN', () => {
    expect(() => stageArnOf('not-an-arn')).toThrow(/Unexpected methodArn/);
  });
});

describe('parseBearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER   abc', 'abc'],
    ['Bearer psk_a-b.c~d+e/f=', 'psk_a-b.c~d+e/f='],
  ])('reads the key from %j', (header, key) => {
    expect(parseBearerToken(header)).toBe(key);
  });

  it.each([
    undefined,
    '',
    'abc',
    'Basic abc',
    'Bearer',
    'Bearer ',
    'Bearer a b',
    'Bearerabc',
    // RFC 6750: `"Bearer" 1*SP b64token`, nothing around it (HTTP trims a field's own whitespace).
    'Bearer\tabc',
    'Bearer abc ',
    'Bearer a"b',
  ])('finds no key in %j', (header) => {
    expect(parseBearerToken(header)).toBeUndefined();
  });
});

describe('authorize', () => {
  const key = 'psk_valid-key';
  const active = recordFor(key, 'ci');

  it('allows a key of a record made before scopes every method of every scope, and names the key in the context, never holding the key', async () => {
    const result = await authorize(
      keysHolding(active),
      `Bearer ${key}`,
      METHOD_ARN,
      TEST_PLANS,
      SCOPE_RESOURCES,
    );

    expect(result.principalId).toBe(active.keyId);
    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: arnsOf(...ALL_SCOPES) },
    ]);
    expect(result.context).toEqual({
      keyId: active.keyId,
      keyName: 'ci',
      plan: 'roomy',
      rateLimitPolicy: ROOMY_POLICY,
      scopes: 'read:pets write:pets',
    });
    expect(JSON.stringify(result)).not.toContain(key);
  });

  it.each([
    [['read:pets'], 'read:pets'],
    [['write:pets'], 'write:pets'],
    [['write:pets', 'read:pets'], 'read:pets write:pets'],
  ] as const)(
    'allows a key holding %j exactly the methods of its scopes, and names them',
    async (scopes, named) => {
      const result = await authorize(
        keysHolding({ ...active, scopes }),
        `Bearer ${key}`,
        METHOD_ARN,
        TEST_PLANS,
        SCOPE_RESOURCES,
      );

      expect(result.policyDocument.Statement).toEqual([
        {
          Action: 'execute-api:Invoke',
          Effect: 'Allow',
          Resource: arnsOf(...ALL_SCOPES.filter((scope) => scopes.includes(scope as never))),
        },
      ]);
      expect(result.context.scopes).toBe(named);
    },
  );

  it('answers the same policy whichever method it was asked for: API Gateway caches it per token for every route', async () => {
    const reader = keysHolding({ ...active, scopes: ['read:pets'] });
    const policyFor = async (methodArn: string) =>
      (await authorize(reader, `Bearer ${key}`, methodArn, TEST_PLANS, SCOPE_RESOURCES)).policyDocument;

    const asked = ['GET/pets', 'POST/pets', 'GET/pets/7', 'DELETE/pets/7', 'PUT/pets'].map(
      (resource) => `${STAGE_ARN}/${resource}`,
    );
    const policies = await Promise.all(asked.map(policyFor));

    for (const policy of policies) expect(policy).toEqual(policies[0]);
  });

  it.each([
    ['a scope the stage does not have', ['read:pets', 'admin:pets']],
    ['no scope at all', []],
  ])('refuses a key holding %s, as an unknown key', async (_case, scopes) => {
    await expect(
      authorize(keysHolding({ ...active, scopes }), `Bearer ${key}`, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES),
    ).rejects.toThrow(/^Unauthorized$/);
  });

  it('puts a key whose record names no plan on the default plan, and hands API Gateway no usage identifier', async () => {
    const result = await authorize(
      keysHolding(active),
      `Bearer ${key}`,
      METHOD_ARN,
      TEST_PLANS,
      SCOPE_RESOURCES,
    );

    expect(result.context.plan).toBe(TEST_PLANS.defaultPlan);
    expect(result).not.toHaveProperty('usageIdentifierKey');
  });

  it("names the key's own plan and its RateLimit-Policy, and hands API Gateway the key's usage identifier", async () => {
    const onTight = { ...active, plan: 'tight', usage: { id: 'a1b2c3', value: 'usage0123456789abcdefghij' } };

    const result = await authorize(
      keysHolding(onTight),
      `Bearer ${key}`,
      METHOD_ARN,
      TEST_PLANS,
      SCOPE_RESOURCES,
    );

    expect(result.context).toMatchObject({
      plan: 'tight',
      rateLimitPolicy: '"tight";q=5;w=86400, "tight-rate";q=2;w=2',
    });
    expect(result.usageIdentifierKey).toBe('usage0123456789abcdefghij');
    // API Gateway reads it from the answer; the functions' context never carries it.
    expect(JSON.stringify(result.context)).not.toContain('usage0123456789abcdefghij');
  });

  it('refuses a key whose plan the stage does not have, as an unknown key', async () => {
    const onGonePlan = { ...active, plan: 'gold' };

    await expect(
      authorize(keysHolding(onGonePlan), `Bearer ${key}`, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES),
    ).rejects.toThrow(/^Unauthorized$/);
  });

  it('accepts the scheme in any case', async () => {
    await expect(
      authorize(keysHolding(active), `bEaReR ${key}`, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES),
    ).resolves.toMatchObject({
      principalId: active.keyId,
    });
  });

  it.each([
    ['no header', undefined],
    ['another scheme', `Basic ${key}`],
    ['an unknown key', 'Bearer psk_unknown'],
  ])('throws Unauthorized for %s', async (_case, header) => {
    await expect(
      authorize(keysHolding(active), header, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES),
    ).rejects.toThrow(/^Unauthorized$/);
  });

  it('throws Unauthorized for a revoked key', async () => {
    const revoked = { ...active, revokedAt: '2026-01-01T00:00:00.000Z' };
    await expect(
      authorize(keysHolding(revoked), `Bearer ${key}`, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES),
    ).rejects.toThrow(/^Unauthorized$/);
  });

  it('looks keys up by their SHA-256, so only hashes need storing', async () => {
    const looked: string[] = [];
    const spy: ApiKeyRepository = {
      ...keysHolding(active),
      findByHash: async (hash) => {
        looked.push(hash);
        return active;
      },
    };
    await authorize(spy, `Bearer ${key}`, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES);
    expect(looked).toEqual([hashApiKey(key)]);
    expect(looked[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes a key to the hex SHA-256 of its UTF-8 bytes (a known-answer vector)', () => {
    // printf 'psk_known-answer' | sha256sum
    expect(hashApiKey('psk_known-answer')).toBe(
      'd270b99271d11f2e446882ec8f2ee8a6571880a66e7f7ff1086cde3e88c2bb97',
    );
  });
});

describe('API keys', () => {
  it('are named by an id made of the first 12 hex digits of their SHA-256 (a known-answer vector)', () => {
    const record = recordFor('psk_known-answer', 'ci', new Date('2026-01-01T00:00:00Z'));

    expect(record).toEqual({
      keyHash: 'd270b99271d11f2e446882ec8f2ee8a6571880a66e7f7ff1086cde3e88c2bb97',
      keyId: 'key-d270b99271d1',
      name: 'ci',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
  });
});
