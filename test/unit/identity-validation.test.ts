import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  generateApiKey,
  IDENTITY_VALIDATION_EXPRESSION,
  MAX_BEARER_TOKEN_LENGTH,
  parseBearerToken,
} from '#shared/auth/api-key';

/**
 * The identity validation expression API Gateway applies before it invokes the TOKEN authorizer
 * (and the local gateway the same): no key the project issues or `npm start` accepts may fail it.
 */

const VALID = new RegExp(IDENTITY_VALIDATION_EXPRESSION);

describe('the identity validation expression', () => {
  it('passes every key npm run keys issues, with the scheme in any case', () => {
    for (let index = 0; index < 500; index += 1) {
      const { key } = generateApiKey('validation');
      for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR'])
        expect(VALID.test(`${scheme} ${key}`), `${scheme} ${key}`).toBe(true);
    }
  });

  // npm start accepts PETSTORE_API_KEY when parseBearerToken reads it back (tools/local/local-stack.ts).
  it('passes every key npm start accepts as PETSTORE_API_KEY, and what it passes is what the authorizer reads', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), (candidate) => {
        const accepted = parseBearerToken(`Bearer ${candidate}`) !== undefined;
        expect(VALID.test(`Bearer ${candidate}`)).toBe(accepted);
      }),
      { numRuns: 2_000 },
    );
  });

  it('passes a key of the longest length allowed, padded, and no longer one', () => {
    const longest = 'k'.repeat(MAX_BEARER_TOKEN_LENGTH);
    expect(VALID.test(`Bearer ${longest}`)).toBe(true);
    expect(VALID.test(`Bearer ${longest}==`)).toBe(true);
    expect(VALID.test(`Bearer ${longest}k`)).toBe(false);
    expect(VALID.test(`Bearer ${longest}===`)).toBe(false);
  });

  it('refuses a 5,000-character token, whatever it is made of, and a header padded with spaces to that length', () => {
    for (const token of ['k'.repeat(5_000), `psk_${'A'.repeat(4_996)}`, `psk_x${'='.repeat(4_995)}`])
      expect(VALID.test(`Bearer ${token}`), token.slice(0, 8)).toBe(false);
    expect(VALID.test(`Bearer${' '.repeat(5_000)}psk_x`)).toBe(false);
  });

  it('is written without flags, classes or groups, so API Gateway (Java) and Node (JavaScript) read it alike', () => {
    expect(IDENTITY_VALIDATION_EXPRESSION).toMatch(/^\^[[\]A-Za-z0-9 +._~/=$*{},-]+\$$/);
  });
});
