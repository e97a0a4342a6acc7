import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient, createLocalClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { generateApiKey, hashApiKey, heldScopes } from '#shared/auth/api-key';
import { StoreUnavailableError } from '#shared/domain/errors';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';

let tables: TestTables;
let keys: ApiKeyRepository;
beforeAll(async () => {
  tables = await createTestTables('keys');
  keys = apiKeysOf(tables);
});

describe('DynamoDbApiKeyRepository', () => {
  it('finds a key by the hash of the key, and stores nothing that holds the key', async () => {
    const { key, record } = generateApiKey('partner');

    await keys.put(record);

    expect(await keys.findByHash(hashApiKey(key))).toEqual(record);
    expect(JSON.stringify(await keys.list())).not.toContain(key);
  });

  it('marks a key revoked, once, and says when there is no such key', async () => {
    const { record } = generateApiKey('to revoke');
    await keys.put(record);

    expect(await keys.revoke(record.keyId, '2026-01-01T00:00:00.000Z')).toBe(true);
    expect(await keys.revoke(record.keyId, '2027-01-01T00:00:00.000Z')).toBe(true);
    expect(await keys.revoke('key-does-not-exist', '2026-01-01T00:00:00.000Z')).toBe(false);

    expect((await keys.findByHash(record.keyHash))?.revokedAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('stores a new key once, and never rewrites a stored one: a revoked key stays revoked, its date stays', async () => {
    const { key, record } = generateApiKey('seeded', new Date('2026-01-01T00:00:00.000Z'));

    const first = await keys.putIfAbsent(record);
    await keys.revoke(record.keyId, '2026-02-01T00:00:00.000Z');
    const again = await keys.putIfAbsent({ ...record, createdAt: '2026-03-01T00:00:00.000Z' });

    expect(first).toEqual(record);
    expect(again).toEqual({ ...record, revokedAt: '2026-02-01T00:00:00.000Z' });
    expect(await keys.findByHash(hashApiKey(key))).toEqual(again);
  });

  it('moves a key to another plan, changing nothing else of its record (its usage identifier stays)', async () => {
    const { record } = generateApiKey('on a plan');
    const usage = { id: 'k1', value: 'usage-value-0123456789' };
    await keys.put({ ...record, plan: 'standard', usage });
    await keys.revoke(record.keyId, '2026-01-01T00:00:00.000Z');

    expect(await keys.assignPlan(record.keyHash, 'partner')).toBe(true);
    expect(await keys.findById(record.keyId)).toEqual({
      ...record,
      revokedAt: '2026-01-01T00:00:00.000Z',
      plan: 'partner',
      usage,
    });
  });

  it('puts no key on a plan that is not stored, and creates none', async () => {
    const { record } = generateApiKey('never stored');

    expect(await keys.assignPlan(record.keyHash, 'standard')).toBe(false);
    expect(await keys.findByHash(record.keyHash)).toBeUndefined();
    expect(await keys.findById(record.keyId)).toBeUndefined();
  });

  it("keeps a key's scopes, and reads a record stored before scopes, as it was written, as holding none of its own (every scope)", async () => {
    const { key, record } = generateApiKey('reader');
    const before = generateApiKey('stored before scopes');
    // As records were written before keys held scopes: no attribute at all.
    await createDocumentClient({ endpoint: tables.endpoint }).send(
      new PutCommand({ TableName: tables.names.apiKeys, Item: { ...before.record, plan: 'standard' } }),
    );
    await keys.put({ ...record, scopes: ['read:pets'] });

    expect(await keys.findByHash(hashApiKey(key))).toEqual({ ...record, scopes: ['read:pets'] });
    const old = await keys.findByHash(hashApiKey(before.key));
    expect(old).toEqual({ ...before.record, plan: 'standard' });
    expect(heldScopes(old ?? before.record)).toEqual(['read:pets', 'write:pets']);
  });

  it('refuses an item whose scopes are not a list of names', async () => {
    await createDocumentClient({ endpoint: tables.endpoint }).send(
      new PutCommand({
        TableName: tables.names.apiKeys,
        Item: { ...generateApiKey('malformed').record, keyHash: 'e'.repeat(64), scopes: 'read:pets' },
      }),
    );

    await expect(keys.findByHash('e'.repeat(64))).rejects.toThrow('An API key item has malformed scopes');
  });

  it('refuses an item that is not a key it wrote, instead of passing undefined fields on', async () => {
    await createDocumentClient({ endpoint: tables.endpoint }).send(
      new PutCommand({ TableName: tables.names.apiKeys, Item: { keyHash: 'f'.repeat(64), keyId: 7 } }),
    );

    await expect(keys.findByHash('f'.repeat(64))).rejects.toThrow('An API key item has no string keyId');
  });

  it.each([
    ['finding a key', (repository: ApiKeyRepository) => repository.findByHash('0'.repeat(64))],
    ['storing a key', (repository: ApiKeyRepository) => repository.put(generateApiKey('x').record)],
    [
      'storing a key unless stored',
      (repository: ApiKeyRepository) => repository.putIfAbsent(generateApiKey('x').record),
    ],
    ['listing keys', (repository: ApiKeyRepository) => repository.list()],
    [
      'revoking a key',
      (repository: ApiKeyRepository) => repository.revoke('any', '2026-01-01T00:00:00.000Z'),
    ],
    [
      'putting a key on a plan',
      (repository: ApiKeyRepository) => repository.assignPlan('0'.repeat(64), 'standard'),
    ],
  ])('translates an unreachable DynamoDB into StoreUnavailableError when %s', async (_what, call) => {
    const client = DynamoDBDocumentClient.from(createLocalClient('http://127.0.0.1:9', { maxAttempts: 1 }));

    await expect(
      call(new DynamoDbApiKeyRepository({ client, apiKeysTable: 'unreachable' })),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
