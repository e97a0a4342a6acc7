import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { PetVersionMismatchError } from '#shared/domain/errors';
import {
  etagOf,
  expectedVersions,
  IfMatch,
  IfNoneMatch,
  isModifiedFor,
  namesVersion,
  versionCondition,
} from '#shared/http/conditional';
import { MAX_ENTITY_TAGS } from '#shared/http/limits';

/**
 * Conditional requests (RFC 9110 §13): a pet's ETag, which versions an If-Match accepts (strong
 * comparison) and an If-None-Match names (weak comparison), and what a change, a removal and a
 * read do under both.
 */

describe("a pet's entity tag", () => {
  it('is its version in double quotes, strong', () => {
    expect(etagOf(3)).toBe('"3"');
    expect(etagOf(1)).toBe('"1"');
  });

  it('is what an If-Match naming it accepts', () => {
    expect(expectedVersions(etagOf(42))).toEqual([42]);
  });
});

describe('the versions an If-Match accepts', () => {
  it('are any when the header is absent or is the wildcard, around white space', () => {
    expect(expectedVersions(undefined)).toBeUndefined();
    expect(expectedVersions('*')).toBeUndefined();
    expect(expectedVersions(' \t* ')).toBeUndefined();
  });

  it('are those its strong tags name, in order', () => {
    expect(expectedVersions('"3"')).toEqual([3]);
    expect(expectedVersions('"3", "7" ,"12"')).toEqual([3, 7, 12]);
  });

  it('leave out a weak tag: it is compared strongly and never matches', () => {
    expect(expectedVersions('W/"3"')).toEqual([]);
    expect(expectedVersions('W/"3", "4"')).toEqual([4]);
  });

  it('leave out a tag no version of ours has: zero, a leading zero, letters, empty, too many digits', () => {
    expect(expectedVersions('"0", "03", "abc", "", "1a", "a1"')).toEqual([]);
    expect(expectedVersions('"12345678901234567"')).toEqual([]);
    expect(expectedVersions('"1234567890123456"')).toEqual([1234567890123456]);
  });

  it('leave out a 16-digit tag beyond the largest exact integer', () => {
    expect(expectedVersions(`"${Number.MAX_SAFE_INTEGER}"`)).toEqual([Number.MAX_SAFE_INTEGER]);
    expect(expectedVersions('"9007199254740993"')).toEqual([]);
  });

  it('are none for a list naming only tags no version has', () => {
    expect(expectedVersions('"x"')).toEqual([]);
  });
});

describe.each([
  ['If-Match', IfMatch],
  ['If-None-Match', IfNoneMatch],
])('the %s header a request may send', (_name, schema) => {
  const accepts = (value: string | undefined) => v.safeParse(schema, value).success;

  it('may be absent', () => {
    expect(accepts(undefined)).toBe(true);
  });

  it('is the wildcard, or a comma-separated list of quoted tags, weak or strong, with empty elements ignored', () => {
    for (const value of [
      '*',
      ' * ',
      '"1"',
      'W/"1"',
      '"1", "2"',
      '"1",W/"2"',
      ', "1"',
      '"1",',
      '"1" ,, "2"',
      '""',
      '"a#~"',
    ])
      expect(accepts(value), value).toBe(true);
  });

  it('is refused when a tag is not quoted, two tags have no comma between, or the wildcard is in a list', () => {
    for (const value of ['1', '"1" "2"', '*, "1"', '**', '"a b"', '"a"b"', 'w/"1"', '', ','])
      expect(accepts(value), value).toBe(false);
  });

  it(`names at most ${MAX_ENTITY_TAGS} entity tags, as many as one conditional write can list: one more is refused`, () => {
    const tags = (count: number) => Array.from({ length: count }, (_, index) => `"${index + 1}"`).join(', ');

    expect(accepts(tags(MAX_ENTITY_TAGS))).toBe(true);
    expect(accepts(`W/${tags(MAX_ENTITY_TAGS)}`)).toBe(true);
    expect(v.safeParse(schema, tags(MAX_ENTITY_TAGS + 1)).issues?.map(({ message }) => message)).toEqual([
      `must name at most ${MAX_ENTITY_TAGS} entity tags`,
    ]);
  });

  it('is refused with a message saying what it must be', () => {
    const result = v.safeParse(schema, '3');
    expect(result.issues?.[0]?.message).toBe(
      'must be `*` or a list of entity tags, each in double quotes (`"3"`)',
    );
    expect(v.safeParse(schema, 3).issues?.[0]?.message).toBe('must be `*` or a list of entity tags');
  });
});

describe('the versions an If-None-Match names', () => {
  it('are none when it is absent, and every one for the wildcard', () => {
    expect(namesVersion(undefined, 1)).toBe(false);
    expect(namesVersion('*', 1)).toBe(true);
    expect(namesVersion(' * ', 9)).toBe(true);
  });

  it('are those its tags name, weak ones too: it compares weakly (RFC 9110 §13.1.2)', () => {
    expect(namesVersion('"3"', 3)).toBe(true);
    expect(namesVersion('W/"3"', 3)).toBe(true);
    expect(namesVersion('"1", W/"3"', 3)).toBe(true);
    expect(namesVersion('"1", W/"2"', 3)).toBe(false);
    expect(namesVersion('"03", "x", ""', 3)).toBe(false);
  });
});

describe('the condition a change or removal is written under', () => {
  it('is any version without either header', () => {
    expect(versionCondition({})).toEqual({ versions: undefined, except: [] });
  });

  it("is If-Match's versions, compared strongly, less If-None-Match's, compared weakly", () => {
    expect(versionCondition({ 'if-match': '"1", W/"2", "3"', 'if-none-match': 'W/"3"' })).toEqual({
      versions: [1, 3],
      except: [3],
    });
    expect(versionCondition({ 'if-none-match': '"4", W/"5"' })).toEqual({
      versions: undefined,
      except: [4, 5],
    });
  });

  it('is no version at all for If-None-Match: *, so a pet that is there is refused whatever If-Match says', () => {
    expect(versionCondition({ 'if-none-match': '*' })).toEqual({ versions: [] });
    expect(versionCondition({ 'if-match': '*', 'if-none-match': '*' })).toEqual({ versions: [] });
  });
});

describe('a read under its preconditions (RFC 9110 §13.2.2)', () => {
  it('answers the pet without them, or when If-Match names its version and If-None-Match does not', () => {
    expect(isModifiedFor({}, 7, 2)).toBe(true);
    expect(isModifiedFor({ 'if-match': '"2"', 'if-none-match': '"1"' }, 7, 2)).toBe(true);
    expect(isModifiedFor({ 'if-match': '*' }, 7, 2)).toBe(true);
  });

  it('is not modified (304) when If-None-Match names its version, weakly or as the wildcard', () => {
    expect(isModifiedFor({ 'if-none-match': '"2"' }, 7, 2)).toBe(false);
    expect(isModifiedFor({ 'if-none-match': 'W/"2"' }, 7, 2)).toBe(false);
    expect(isModifiedFor({ 'if-none-match': '*' }, 7, 2)).toBe(false);
  });

  it('fails (412) when If-Match names none of its versions, strongly, before If-None-Match is read', () => {
    expect(() => isModifiedFor({ 'if-match': '"1"' }, 7, 2)).toThrow(PetVersionMismatchError);
    expect(() => isModifiedFor({ 'if-match': 'W/"2"' }, 7, 2)).toThrow(PetVersionMismatchError);
    expect(() => isModifiedFor({ 'if-match': '"1"', 'if-none-match': '"2"' }, 7, 2)).toThrow(
      new PetVersionMismatchError(7),
    );
  });
});
