import { createHash, randomBytes } from 'node:crypto';
import { ALL_SCOPES } from '#shared/auth/scopes';

/** A stored API key: its hash and what names it, never the key itself. */
export interface ApiKeyRecord {
  readonly keyHash: string;
  readonly keyId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
  /** The key's plan; the stage's default plan when it names none. */
  readonly plan?: string;
  /** The API Gateway API key the authorizer names (`usageIdentifierKey`) to meter the key; none locally. */
  readonly usage?: UsageIdentifier;
  /** What the key may do (shared/auth/scopes.ts), as stored; none on a record made before scopes: every scope. */
  readonly scopes?: readonly string[];
}

/** An API Gateway API key standing for a bearer key in its usage plan: its id and its value. */
export interface UsageIdentifier {
  readonly id: string;
  readonly value: string;
}

const KEY_PREFIX = 'psk_';

/** The longest key before padding (ours have 47): longer is a 401 that never invokes the authorizer. */
export const MAX_BEARER_TOKEN_LENGTH = 512;

/** A key as RFC 6750 writes a bearer token (`b64token`), bounded, then at most two `=`. */
export const BEARER_TOKEN = `[A-Za-z0-9._~+/-]{1,${MAX_BEARER_TOKEN_LENGTH}}={0,2}`;

/** Spaces between the scheme and the key (RFC 6750: `1*SP`), bounded like the key. */
const MAX_SEPARATING_SPACES = 16;

/**
 * The TOKEN authorizer's identity validation expression (RFC 9110 §11.1, RFC 6750 §2.1): no flags, classes
 * or groups, which Java (API Gateway) and JavaScript could read differently.
 */
export const IDENTITY_VALIDATION_EXPRESSION = `^[Bb][Ee][Aa][Rr][Ee][Rr] {1,${MAX_SEPARATING_SPACES}}${BEARER_TOKEN}$`;

const BEARER = new RegExp(IDENTITY_VALIDATION_EXPRESSION);

export const parseBearerToken = (header: string | undefined): string | undefined =>
  header !== undefined && BEARER.test(header) ? header.slice(header.lastIndexOf(' ') + 1) : undefined;

/** The hex SHA-256 of the key's UTF-8 bytes (Node hashes a string as UTF-8). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

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

/** The scopes a record holds: its own, or every scope for a record that names none (made before scopes). */
export const heldScopes = (record: Pick<ApiKeyRecord, 'scopes'>): readonly string[] =>
  record.scopes ?? ALL_SCOPES;
