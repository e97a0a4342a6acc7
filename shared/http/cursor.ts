import { createHmac, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { type PetListing, type PositionKind, positionKindOf } from '#shared/adapters/dynamodb/pet-listing';
import { type ListPosition, PET_FIELDS, PetId } from '#shared/domain/pet';
import { CURSOR_PROBLEM, MAX_CURSOR_LENGTH } from '#shared/http/cursor-problems';

/**
 * A listing's opaque `cursor`: base64url of kind (1 byte) · tag (8) · `{"s":<filter>,"p":[<id>]}`.
 * The kind is how its listing continues (http/../pet-listing.ts): 1 after a pet (a Scan of the table),
 * 2 at a pet (an index); `s`, the value an index's listing is filtered by. The tag is an HMAC keyed by
 * the listing's name, for integrity only: an edited copy, or another listing's cursor, is a clean 400,
 * not a different page. Cursors issued before listings were declared are these very bytes.
 */

const KIND_BYTES: Readonly<Record<PositionKind, number>> = { afterId: 1, fromId: 2 };
export const POSITIONS_PER_LISTING = 1;

const TAG_BYTES = 8;
const HEADER_BYTES = 1 + TAG_BYTES;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Kind bytes stay below this; a JSON text or a base64url string, say, starts above it. */
const FIRST_NON_KIND_BYTE = 0x20;

/** Where a listing continues, and, for an index's listing, the value it is filtered by. */
export interface ListCursor<L extends PetListing = PetListing> {
  readonly listing: L;
  readonly filter?: unknown;
  readonly positions: readonly ListPosition[];
}

const positions = v.pipe(
  v.array(PetId),
  v.minLength(POSITIONS_PER_LISTING),
  v.maxLength(POSITIONS_PER_LISTING),
);

const payloadOf = (listing: PetListing) =>
  listing.index
    ? v.strictObject({ s: PET_FIELDS[listing.index.field].schema as v.GenericSchema, p: positions })
    : v.strictObject({ p: positions });

const kindOfByte = (byte: number): PositionKind | undefined =>
  (Object.keys(KIND_BYTES) as PositionKind[]).find((kind) => KIND_BYTES[kind] === byte);

const idOf = (position: ListPosition): { readonly kind: PositionKind; readonly id: number } =>
  'fromId' in position ? { kind: 'fromId', id: position.fromId } : { kind: 'afterId', id: position.afterId };

const positionOf = (kind: PositionKind, id: number): ListPosition =>
  kind === 'fromId' ? { fromId: id } : { afterId: id };

const tagOf = (listing: PetListing, kind: number, payload: Buffer): Buffer =>
  createHmac('sha256', `pet-store ${listing.name} cursor, version 1`)
    .update(Buffer.from([kind]))
    .update(payload)
    .digest()
    .subarray(0, TAG_BYTES);

/** The cursor of a listing (filtered by `filter`, for an index's) at its next positions. */
export const encodeCursor = <L extends PetListing>(cursor: ListCursor<L>): string => {
  const { listing } = cursor;
  const kind = positionKindOf(listing);
  const ids = cursor.positions.map(idOf);
  if (ids.some((id) => id.kind !== kind))
    throw new Error(`A cursor of ${listing.name} holds ${kind} positions`);
  if ((cursor.filter === undefined) === (listing.index !== undefined))
    throw new Error('An index is walked for one value of its field, and only an index');
  const byte = KIND_BYTES[kind];
  const payload = Buffer.from(
    JSON.stringify({ ...(listing.index ? { s: cursor.filter } : {}), p: ids.map(({ id }) => id) }),
  );
  return Buffer.concat([Buffer.from([byte]), tagOf(listing, byte, payload), payload]).toString('base64url');
};

export type CursorDecoding<L extends PetListing> =
  | { readonly ok: true; readonly cursor: ListCursor<L> }
  | { readonly ok: false; readonly problem: string };

const refused = (problem: string): { readonly ok: false; readonly problem: string } => ({
  ok: false,
  problem,
});

/**
 * Reads a cursor of one of `listings` (an operation's): size, alphabet, canonical base64url, kind, tag,
 * then the payload's shape. Never throws.
 */
export const decodeCursor = <L extends PetListing>(
  listings: readonly L[],
  text: string,
): CursorDecoding<L> => {
  if (text.length === 0) return refused(CURSOR_PROBLEM.empty);
  if (text.length > MAX_CURSOR_LENGTH) return refused(CURSOR_PROBLEM.tooLong);
  if (!BASE64URL.test(text)) return refused(CURSOR_PROBLEM.alphabet);
  const bytes = Buffer.from(text, 'base64url');
  // Node decodes leniently: only the one canonical spelling of these bytes is a cursor.
  if (bytes.toString('base64url') !== text || bytes.length <= HEADER_BYTES) {
    return refused(CURSOR_PROBLEM.notIssued);
  }
  const byte = bytes[0] ?? 0;
  const kind = kindOfByte(byte);
  if (!kind) {
    // Kinds are small numbers; any other first byte is not a cursor at all.
    return refused(byte < FIRST_NON_KIND_BYTE ? CURSOR_PROBLEM.version : CURSOR_PROBLEM.notIssued);
  }
  const tag = bytes.subarray(1, HEADER_BYTES);
  const payload = bytes.subarray(HEADER_BYTES);
  const listing = listings.find(
    (candidate) =>
      positionKindOf(candidate) === kind && timingSafeEqual(tag, tagOf(candidate, byte, payload)),
  );
  if (!listing) return refused(CURSOR_PROBLEM.notIssued);
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch {
    return refused(CURSOR_PROBLEM.notIssued);
  }
  const parsed = v.safeParse(payloadOf(listing), json);
  if (!parsed.success) return refused(CURSOR_PROBLEM.notIssued);
  const read = parsed.output as { readonly s?: unknown; readonly p: readonly number[] };
  return {
    ok: true,
    cursor: {
      listing,
      ...(listing.index ? { filter: read.s } : {}),
      positions: read.p.map((id) => positionOf(kind, id)),
    },
  };
};

/** The `cursor` query parameter of an operation's listings: documented as the string a client sends, decoded by validation. */
/* @__NO_SIDE_EFFECTS__ */
export const cursorParam = <L extends PetListing>(listings: readonly L[]) =>
  v.pipe(
    v.string(),
    v.minLength(1, CURSOR_PROBLEM.empty),
    v.maxLength(MAX_CURSOR_LENGTH, CURSOR_PROBLEM.tooLong),
    v.regex(BASE64URL, CURSOR_PROBLEM.alphabet),
    v.rawTransform(({ dataset, addIssue, NEVER }): ListCursor<L> => {
      const decoded = decodeCursor(listings, dataset.value);
      if (decoded.ok) return decoded.cursor;
      addIssue({ message: decoded.problem });
      return NEVER;
    }),
  );

/** A cursor is only good for the listing, and the filter value, it was issued for. */
export const cursorContinues = <L extends PetListing>(
  cursor: ListCursor<L> | undefined,
  listing: L,
  filter: unknown,
): boolean => !cursor || (cursor.listing === listing && cursor.filter === filter);
