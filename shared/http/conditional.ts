import * as v from 'valibot';
import { PetVersionMismatchError } from '#shared/domain/errors';
import type { ExpectedVersions } from '#shared/domain/pet';
import type { VersionCondition } from '#shared/domain/version-condition';
import { MAX_ENTITY_TAGS } from '#shared/http/limits';
import { describe } from '#shared/schema/describe';

/** A pet's `ETag` (RFC 9110 §8.8.3; If-Match: §13.1.1): strong and opaque, its version quoted (`"3"`). */
export const etagOf = (version: number): string => `"${version}"`;

/** `entity-tag = [ weak ] opaque-tag`, `opaque-tag = DQUOTE *etagc DQUOTE` (RFC 9110 §8.8.3). */
const ENTITY_TAG = '(?:W/)?"[!#-~\\x80-\\xFF]*"';
/**
 * `If-Match = "*" / #entity-tag`, and `If-None-Match` alike: a list whose empty elements a recipient ignores
 * (RFC 9110 §5.6.1).
 */
const ANY_OR_ENTITY_TAGS = new RegExp(
  `^[ \\t]*(?:\\*|(?:,[ \\t]*)*${ENTITY_TAG}(?:[ \\t]*,(?:[ \\t]*${ENTITY_TAG})?)*)[ \\t]*$`,
  'u',
);
const TAGS = /(W\/)?"([^"]*)"/g;
const VERSION = /^[1-9]\d{0,15}$/;

/** `*` or a list of at most MAX_ENTITY_TAGS entity tags, as the header holds them; `description` for the document. */
const entityTagsHeader = (description: string) =>
  describe(
    v.optional(
      v.pipe(
        v.string('must be `*` or a list of entity tags'),
        v.regex(ANY_OR_ENTITY_TAGS, 'must be `*` or a list of entity tags, each in double quotes (`"3"`)'),
        v.check(
          (tags) => [...tags.matchAll(TAGS)].length <= MAX_ENTITY_TAGS,
          `must name at most ${MAX_ENTITY_TAGS} entity tags`,
        ),
      ),
    ),
    { description: `${description} At most ${MAX_ENTITY_TAGS} tags.`, example: '"1"' },
  );

export const IfMatch = entityTagsHeader(
  'Applies the request only if the animal is still as the client last saw it: `*`, or one or more of the `ETag` values its answers carried (RFC 9110). When the animal has changed since (its ETag is none of these), the answer is 412 `PRECONDITION_FAILED` and nothing changes. Tags are compared strongly: a weak one (`W/"3"`) never matches. Without it, the request applies to the animal as it is. `If-Unmodified-Since` is not read: an animal has no modification date.',
);

/** For a change or removal: 412 when the animal is at a tag it names. */
export const IfNoneMatch = entityTagsHeader(
  'Applies the change or removal only if the animal is at none of these ETags (RFC 9110): `*` names every one, so any animal there is refused. When it is at one of them, the answer is 412 `PRECONDITION_FAILED` and nothing changes. Tags are compared weakly: `W/"3"` names the same version as `"3"`. An animal that does not exist is 404, with or without it.',
);

/** For a read: 304 when the animal is at a tag it names. */
export const IfNoneMatchOnRead = entityTagsHeader(
  'Answers 304 Not Modified, with the `ETag` and no body, when the animal is still at one of these ETags (RFC 9110): the copy the client holds is current. `*` names every one. Tags are compared weakly: `W/"3"` names the same version as `"3"`. `If-Modified-Since` is not read: an animal has no modification date.',
);

/** For a read: 412 when the animal is at none of the tags it names. */
export const IfMatchOnRead = entityTagsHeader(
  'Answers only if the animal is still at one of these ETags, compared strongly (RFC 9110); else 412 `PRECONDITION_FAILED`. `*` names every one. `If-Unmodified-Since` is not read: an animal has no modification date.',
);

/** The versions `tags` names, each `weak` one left out unless `weakToo`; undefined for `*` (any version). */
const versionsNamed = (tags: string, weakToo: boolean): readonly number[] | undefined => {
  if (tags.trim() === '*') return undefined;
  return [...tags.matchAll(TAGS)]
    .filter(([, weak, opaque]) => (weakToo || weak === undefined) && VERSION.test(opaque ?? ''))
    .map(([, , opaque]) => Number(opaque))
    .filter(Number.isSafeInteger);
};

/** The versions an `If-Match` accepts (RFC 9110 §13.1.1, strong comparison): any for `*` or none. */
export const expectedVersions = (ifMatch: string | undefined): ExpectedVersions =>
  ifMatch === undefined ? undefined : versionsNamed(ifMatch, false);

/** Whether an `If-None-Match` names `version` (RFC 9110 §13.1.2, weak comparison; `*` names every one). */
export const namesVersion = (ifNoneMatch: string | undefined, version: number): boolean => {
  if (ifNoneMatch === undefined) return false;
  return versionsNamed(ifNoneMatch, true)?.includes(version) ?? true;
};

interface Preconditions {
  readonly 'if-match'?: string | undefined;
  readonly 'if-none-match'?: string | undefined;
}

/**
 * What a change or removal may apply to (RFC 9110 §13.2.2): a version `If-Match` names, and none that
 * `If-None-Match` names; `If-None-Match: *`, no version at all (a pet that is there is refused).
 */
export const versionCondition = (headers: Preconditions): VersionCondition => {
  const ifNoneMatch = headers['if-none-match'];
  const except = ifNoneMatch === undefined ? [] : versionsNamed(ifNoneMatch, true);
  if (except === undefined) return { versions: [] };
  return { versions: expectedVersions(headers['if-match']), except };
};

/**
 * Whether a read of the pet at `version` answers it (RFC 9110 §13.2.2): PetVersionMismatchError (412) when
 * `If-Match` names none of its tags, false (304 Not Modified) when `If-None-Match` names its tag.
 */
export const isModifiedFor = (headers: Preconditions, petId: number, version: number): boolean => {
  const expected = expectedVersions(headers['if-match']);
  if (expected !== undefined && !expected.includes(version)) throw new PetVersionMismatchError(petId);
  return !namesVersion(headers['if-none-match'], version);
};

export const ETAG_HEADER = {
  ETag: {
    description:
      "The animal's current entity tag (strong, opaque): send it back in `If-Match` to change or remove the animal only if nobody has changed it since, or in `If-None-Match` to read it only if it has changed (304 otherwise). Every change gives a new one.",
    required: true,
    schema: v.string(),
    example: '"1"',
  },
} as const;
