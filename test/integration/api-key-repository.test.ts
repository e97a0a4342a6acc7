import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '#shared/auth/api-key';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { apiKeysOf, createTestTables } from '../support/tables';

let keys: ApiKeyRepository;
beforeAll(async () => {
  keys = apiKeysOf(await createTestTables('keys'));
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
});
