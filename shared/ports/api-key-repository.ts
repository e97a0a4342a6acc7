import type { ApiKeyRecord } from '#shared/auth/api-key';

/** Where API keys are kept, by the SHA-256 of the key: the key itself is never stored. */
export interface ApiKeyRepository {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  put(record: ApiKeyRecord): Promise<void>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; returns false when no key has this id. */
  revoke(keyId: string, revokedAt: string): Promise<boolean>;
}
