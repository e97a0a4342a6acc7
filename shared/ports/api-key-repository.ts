import type { ApiKeyRecord } from '#shared/auth/api-key';

/** Where API keys are kept, by the SHA-256 of the key: the key itself is never stored. */
export interface ApiKeyRepository {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  put(record: ApiKeyRecord): Promise<void>;
  /** Stores `record` unless one of the same hash is stored, which stays as it is (revoked stays revoked); returns the stored one. */
  putIfAbsent(record: ApiKeyRecord): Promise<ApiKeyRecord>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; returns false when no key has this id. */
  revoke(keyId: string, revokedAt: string): Promise<boolean>;
  /** Revoked or not; key administration only. */
  findById(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Puts a stored key on `plan`, nothing else changed; returns false when no key has this hash. */
  assignPlan(keyHash: string, plan: string): Promise<boolean>;
}
