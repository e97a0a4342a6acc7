import { createHmac, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { type ListPosition, PetId, PetStatus } from '#shared/domain/pet';
import { CURSOR_PROBLEM, MAX_CURSOR_LENGTH } from '#shared/http/cursor-problems';

/**
 * A listing's opaque `cursor`: base64url of version (1 byte) · tag (8) · `{"s":"<status>","p":[<id>]}`.
 * Version 1: after `afterId`, unfiltered; 2: at `fromId`, by status. The HMAC tag is for integrity only:
 * an edited copy is a clean 400, not a different page.
 */

export const CURSOR_VERSIONS = { afterId: 1, fromId: 2 } as const;
export const POSITIONS_PER_LISTING = 1;

const TAG_BYTES = 8;
const HEADER_BYTES = 1 + TAG_BYTES;
const INTEGRITY_KEY = 'pet-store listPets cursor, version 1';
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Version bytes stay below this; a JSON text or a base64url string, say, starts above it. */
const FIRST_NON_VERSION_BYTE = 0x20;

export interface ListCursor {
  readonly status?: PetStatus;
  readonly positions: readonly ListPosition[];
}

const positions = v.pipe(
  v.array(PetId),
  v.minLength(POSITIONS_PER_LISTING),
  v.maxLength(POSITIONS_PER_LISTING),
);

const PAYLOADS = {
  [CURSOR_VERSIONS.afterId]: v.strictObject({ p: positions }),
  [CURSOR_VERSIONS.fromId]: v.strictObject({ s: PetStatus, p: positions }),
} as const;

type PositionKind = keyof typeof CURSOR_VERSIONS;

const kindOf = (version: number): PositionKind | undefined =>
  version === CURSOR_VERSIONS.afterId ? 'afterId' : version === CURSOR_VERSIONS.fromId ? 'fromId' : undefined;

const idOf = (position: ListPosition): { readonly kind: PositionKind; readonly id: number } =>
  'fromId' in position ? { kind: 'fromId', id: position.fromId } : { kind: 'afterId', id: position.afterId };

const positionOf = (kind: PositionKind, id: number): ListPosition =>
  kind === 'fromId' ? { fromId: id } : { afterId: id };

const tagOf = (version: number, payload: Buffer): Buffer =>
  createHmac('sha256', INTEGRITY_KEY)
    .update(Buffer.from([version]))
    .update(payload)
    .digest()
    .subarray(0, TAG_BYTES);

/** The cursor for a listing and its next positions (of one kind, which sets the version). */
export const encodeCursor = (cursor: ListCursor): string => {
  const ids = cursor.positions.map(idOf);
  const kinds = new Set(ids.map(({ kind }) => kind));
  const [kind = 'afterId'] = kinds;
  if (kinds.size > 1) throw new Error('A cursor holds positions of one kind');
  if ((kind === 'fromId') !== (cursor.status !== undefined))
    throw new Error('Only a listing by status starts a page at a pet, and only it');
  const version = CURSOR_VERSIONS[kind];
  const payload = Buffer.from(
    JSON.stringify({ ...(cursor.status ? { s: cursor.status } : {}), p: ids.map(({ id }) => id) }),
  );
  return Buffer.concat([Buffer.from([version]), tagOf(version, payload), payload]).toString('base64url');
};

export type CursorDecoding =
  | { readonly ok: true; readonly cursor: ListCursor }
  | { readonly ok: false; readonly problem: string };

const refused = (problem: string): CursorDecoding => ({ ok: false, problem });

/** Reads a cursor: size, alphabet, canonical base64url, version, tag, then the payload's shape. Never throws. */
export const decodeCursor = (text: string): CursorDecoding => {
  if (text.length === 0) return refused(CURSOR_PROBLEM.empty);
  if (text.length > MAX_CURSOR_LENGTH) return refused(CURSOR_PROBLEM.tooLong);
  if (!BASE64URL.test(text)) return refused(CURSOR_PROBLEM.alphabet);
  const bytes = Buffer.from(text, 'base64url');
  // Node decodes leniently: only the one canonical spelling of these bytes is a cursor.
  if (bytes.toString('base64url') !== text || bytes.length <= HEADER_BYTES) {
    return refused(CURSOR_PROBLEM.notIssued);
  }
  const version = bytes[0] ?? 0;
  const kind = kindOf(version);
  if (!kind) {
    // Versions are small numbers; any other first byte is not a cursor at all.
    return refused(version < FIRST_NON_VERSION_BYTE ? CURSOR_PROBLEM.version : CURSOR_PROBLEM.notIssued);
  }
  const tag = bytes.subarray(1, HEADER_BYTES);
  const payload = bytes.subarray(HEADER_BYTES);
  if (!timingSafeEqual(tag, tagOf(version, payload))) return refused(CURSOR_PROBLEM.notIssued);
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch {
    return refused(CURSOR_PROBLEM.notIssued);
  }
  const parsed = v.safeParse(PAYLOADS[CURSOR_VERSIONS[kind]], json);
  if (!parsed.success) return refused(CURSOR_PROBLEM.notIssued);
  return {
    ok: true,
    cursor: {
      ...('s' in parsed.output ? { status: parsed.output.s } : {}),
      positions: parsed.output.p.map((id) => positionOf(kind, id)),
    },
  };
};

/** The `cursor` query parameter: documented as the string a client sends, decoded by validation. */
export const cursorParam = v.pipe(
  v.string(),
  v.minLength(1, CURSOR_PROBLEM.empty),
  v.maxLength(MAX_CURSOR_LENGTH, CURSOR_PROBLEM.tooLong),
  v.regex(BASE64URL, CURSOR_PROBLEM.alphabet),
  v.rawTransform(({ dataset, addIssue, NEVER }): ListCursor => {
    const decoded = decodeCursor(dataset.value);
    if (decoded.ok) return decoded.cursor;
    addIssue({ message: decoded.problem });
    return NEVER;
  }),
);

/** A cursor is only good for the status it was issued for (none for an unfiltered listing); `limit` may change. */
export const cursorMatchesStatus = (query: {
  readonly status?: PetStatus | undefined;
  readonly cursor?: ListCursor | undefined;
}): boolean => !query.cursor || query.cursor.status === query.status;
