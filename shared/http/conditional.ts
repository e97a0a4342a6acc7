import * as v from 'valibot';
import type { ExpectedVersions } from '#shared/domain/pet';
import { describe } from '#shared/schema/describe';

/** A pet's `ETag` (RFC 9110 §8.8.3; If-Match: §13.1.1): strong and opaque, its version quoted (`"3"`). */
export const etagOf = (version: number): string => `"${version}"`;

/** `entity-tag = [ weak ] opaque-tag`, `opaque-tag = DQUOTE *etagc DQUOTE` (RFC 9110 §8.8.3). */
const ENTITY_TAG = '(?:W/)?"[!#-~\\x80-\\xFF]*"';
/** `If-Match = "*" / #entity-tag`: a list whose empty elements a recipient ignores (RFC 9110 §5.6.1). */
const IF_MATCH = new RegExp(
  `^[ \\t]*(?:\\*|(?:,[ \\t]*)*${ENTITY_TAG}(?:[ \\t]*,(?:[ \\t]*${ENTITY_TAG})?)*)[ \\t]*$`,
  'u',
);
const TAGS = /(W\/)?"([^"]*)"/g;
const VERSION = /^[1-9]\d{0,15}$/;

export const IfMatch = describe(
  v.optional(
    v.pipe(
      v.string('must be `*` or a list of entity tags'),
      v.regex(IF_MATCH, 'must be `*` or a list of entity tags, each in double quotes (`"3"`)'),
    ),
  ),
  {
    description:
      'Applies the request only if the animal is still as the client last saw it: `*`, or one or more of the `ETag` values its answers carried (RFC 9110). When the animal has changed since (its ETag is none of these), the answer is 412 `PRECONDITION_FAILED` and nothing changes. Tags are compared strongly: a weak one (`W/"3"`) never matches. Without it, the request applies to the animal as it is.',
    example: '"1"',
  },
);

/** The versions an `If-Match` accepts: any (`undefined`) for `*` or none, else those its strong tags name. */
export const expectedVersions = (ifMatch: string | undefined): ExpectedVersions => {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  return [...ifMatch.matchAll(TAGS)]
    .filter(([, weak, opaque]) => weak === undefined && VERSION.test(opaque ?? ''))
    .map(([, , opaque]) => Number(opaque))
    .filter(Number.isSafeInteger);
};

export const ETAG_HEADER = {
  ETag: {
    description:
      "The animal's current entity tag (strong, opaque): send it back in `If-Match` to change or remove the animal only if nobody has changed it since. Every change gives a new one.",
    required: true,
    schema: v.string(),
    example: '"1"',
  },
} as const;
