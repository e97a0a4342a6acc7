/** A cursor of a listing filtered by status is at most 67 characters; anything much longer is refused unread. */
export const MAX_CURSOR_LENGTH = 128;

/** Why a text is not a cursor (a detail on `query.cursor`): apart from the codec, which most bundles lack. */
export const CURSOR_PROBLEM = {
  empty: 'must not be empty',
  tooLong: `must be at most ${MAX_CURSOR_LENGTH} characters`,
  alphabet: 'must be copied unchanged from a Link header (base64url characters only)',
  version: 'was issued by another version of the API; start the listing again',
  notIssued: 'is not a cursor this API issued, or it was altered; copy it unchanged from a Link header',
} as const;

/** Why a cursor does not continue this listing: it was issued for another value of the filter `name`. */
export const otherFilterProblem = (name: string): string =>
  `belongs to a listing with another ${name}; a cursor keeps the ${name} of the first page`;
