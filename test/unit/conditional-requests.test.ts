import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { etagOf, expectedVersions, IfMatch } from '#shared/http/conditional';

/** Conditional requests (RFC 9110): a pet's ETag, and which versions an If-Match accepts. */

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

describe('the If-Match header a request may send', () => {
  const accepts = (value: string | undefined) => v.safeParse(IfMatch, value).success;

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

  it('is refused with a message saying what it must be', () => {
    const result = v.safeParse(IfMatch, '3');
    expect(result.issues?.[0]?.message).toBe(
      'must be `*` or a list of entity tags, each in double quotes (`"3"`)',
    );
    expect(v.safeParse(IfMatch, 3).issues?.[0]?.message).toBe('must be `*` or a list of entity tags');
  });
});
