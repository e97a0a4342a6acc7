import { createHash, randomBytes } from 'node:crypto';

/** A stored API key: its hash and what names it, never the key itself. */
export interface ApiKeyRecord {
  readonly keyHash: string;
  readonly keyId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
  /** The key's plan (shared/fair-use/plans.ts); the stage's default plan when it names none. */
  readonly plan?: string;
  /**
   * The key's usage identifier in AWS: an API Gateway API key in the usage plan of `plan`, which
   * the authorizer hands API Gateway (`usageIdentifierKey`) to meter the key. The client never
   * sees or sends it; with the API's key source AUTHORIZER it grants nothing by itself. None
   * locally (no API Gateway), nor for a key created before plans (`npm run keys -- move`).
   */
  readonly usage?: UsageIdentifier;
}

/** An API Gateway API key standing for a bearer key in its usage plan: its id and its value. */
export interface UsageIdentifier {
  readonly id: string;
  readonly value: string;
}

const KEY_PREFIX = 'psk_';

/** `Authorization: Bearer <key>`; the scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

/** The key carried by an Authorization header value, or `undefined` when it carries none. */
export const parseBearerToken = (header: string | undefined): string | undefined =>
  header?.match(BEARER)?.[1];

/** The hex SHA-256 of the key's UTF-8 bytes (Node hashes a string as UTF-8). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** A new key (256 random bits) and the record to store for it. */
export const generateApiKey = (name: string, now = new Date()): { key: string; record: ApiKeyRecord } => {
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, record: recordFor(key, name, now) };
};

/** The record for a key chosen elsewhere (for example `PETSTORE_API_KEY` locally). */
export const recordFor = (key: string, name: string, now = new Date()): ApiKeyRecord => {
  const keyHash = hashApiKey(key);
  // The id is derived from the hash, not the key: it can be shown and logged safely.
  return { keyHash, keyId: `key-${keyHash.slice(0, 12)}`, name, createdAt: now.toISOString() };
};

export const isActive = (record: ApiKeyRecord): boolean => record.revokedAt === undefined;
