import type { ApiKeyRecord } from '#shared/auth/api-key';

/** Where API keys are kept, by the SHA-256 of the key: the key itself is never stored. */
export interface ApiKeyRepository {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  put(record: ApiKeyRecord): Promise<void>;
  /**
   * Stores `record` unless a record of the same key (hash) is stored already, which is then left
   * exactly as it is: a revoked key stays revoked, its creation date stays. Returns the record
   * stored now, whichever it is.
   */
  putIfAbsent(record: ApiKeyRecord): Promise<ApiKeyRecord>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; returns false when no key has this id. */
  revoke(keyId: string, revokedAt: string): Promise<boolean>;
  /** The key with this id (`key-…`), revoked or not; key administration only. */
  findById(keyId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Puts a stored key on `plan`; returns false when no key has this hash. Nothing else of the
   * record changes (its usage identifier stays; a revoked key stays revoked).
   */
  assignPlan(keyHash: string, plan: string): Promise<boolean>;
}
