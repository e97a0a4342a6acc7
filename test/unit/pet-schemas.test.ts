import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CreatePetHeaders } from '#functions/create-pet';
import { getPet } from '#functions/get-pet';
import { listPets } from '#functions/list-pets';
import { MAX_ID, NewPet, PET_FIELD_NAMES, PET_STATUSES } from '#shared/domain/pet';
import { requestSchema } from '#shared/http/middleware/validate-request';

const listPetsRequest = requestSchema(listPets.request);
const getPetRequest = requestSchema(getPet.request);

describe('NewPet', () => {
  it('accepts every well-formed pet', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }).filter((name) => /\S/.test(name)),
        fc.integer({ min: 1, max: MAX_ID }),
        fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }),
        (name, categoryId, status) => {
          const pet = status === undefined ? { name, categoryId } : { name, categoryId, status };
          expect(v.parse(NewPet, pet)).toEqual(pet);
        },
      ),
    );
  });

  it('rejects any extra field, whatever its name', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((key) => ![...PET_FIELD_NAMES, '__proto__'].includes(key)),
        fc.jsonValue(),
        (key, value) => {
          expect(v.safeParse(NewPet, { name: 'Rex', categoryId: 1, [key]: value }).success).toBe(false);
        },
      ),
    );
  });

  it('rejects ids a JavaScript client could not hold exactly', () => {
    expect(v.safeParse(NewPet, { name: 'Rex', categoryId: MAX_ID + 1 }).success).toBe(false);
    expect(v.safeParse(NewPet, { name: 'Rex', categoryId: MAX_ID }).success).toBe(true);
  });
});

describe('listPets query', () => {
  it('defaults limit to 20 and leaves status unset', () => {
    expect(v.parse(listPetsRequest, { query: {} })).toEqual({ query: { limit: 20 } });
  });

  it('decodes every limit from 1 to 100 and refuses every other integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000, max: 1_000 }), (limit) => {
        const result = v.safeParse(listPetsRequest, { query: { limit: String(limit) } });
        expect(result.success).toBe(limit >= 1 && limit <= 100);
        if (result.success) expect(result.output).toEqual({ query: { limit } });
      }),
    );
  });

  it('refuses any limit that is not written as an integer', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !/^-?\d+$/.test(text)),
        (limit) => {
          expect(v.safeParse(listPetsRequest, { query: { limit } }).success).toBe(false);
        },
      ),
    );
  });
});

describe('getPet path', () => {
  it('decodes any id in 1..2^53−1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ID }), (id) => {
        expect(v.parse(getPetRequest, { path: { petId: String(id) }, headers: {} })).toEqual({
          path: { petId: id },
          headers: {},
        });
      }),
    );
  });
});

describe('a pet name', () => {
  const nameProblem = (name: string) => {
    const result = v.safeParse(NewPet, { name, categoryId: 1 });
    return result.success ? undefined : result.issues[0]?.message;
  };

  it.each([
    ['U+200B (zero width space)', '\u200b'],
    ['U+200D U+200C (zero width joiner, non-joiner)', '\u200d\u200c'],
    ['U+2060 U+00A0 (word joiner, no-break space)', '\u2060\u00a0'],
    ['U+3164 (Hangul filler)', '\u3164'],
    ['U+FEFF (byte order mark)', '\ufeff'],
    ['U+2800 (blank Braille pattern)', '\u2800'],
    ['a combining accent on nothing', '\u0301'],
    ['spaces and tabs', ' \u3000 '],
  ])('is refused when it is only %s: nothing would show', (_case, name) => {
    expect(nameProblem(name)).toMatch(/^must not be blank: it needs a visible character/);
  });

  it.each([
    ['NUL', 'Rex\u0000'],
    ['BEL', 'Re\u0007x'],
    ['a line break', 'Rex\nthe dog'],
    ['DEL', 'Rex\u007f'],
    ['U+0085 (next line)', 'Rex\u0085'],
  ])('is refused when it holds %s anywhere', (_case, name) => {
    expect(nameProblem(name)).toBe(
      'must not contain control characters (U+0000 to U+001F, U+007F to U+009F)',
    );
  });

  it.each([['Rex'], ['Zoë'], ['🐕'], ['👨‍👩‍👧 (joined by U+200D)'], ['Rex\u200b'], ['  Rex  '], ['ㅤRex']])(
    'accepts %s: a visible character, no control character',
    (name) => {
      expect(nameProblem(name)).toBeUndefined();
    },
  );

  it('counts characters as code points, as JSON Schema does: 200 emoji are a name, 201 are too many', () => {
    expect(nameProblem('🐕'.repeat(150))).toBeUndefined();
    expect(nameProblem('🐕'.repeat(200))).toBeUndefined();
    expect(nameProblem('🐕'.repeat(201))).toBe('must be at most 200 characters');
    expect(nameProblem('x'.repeat(201))).toBe('must be at most 200 characters');
  });

  it.each([
    ['a high surrogate alone at the end', 'a\ud800'],
    ['a low surrogate alone at the start', '\udc00Rex'],
    ['half of an emoji', `Rex ${'🐕'.slice(0, 1)} the dog`],
  ])('is refused when it is not well-formed Unicode: %s', (_case, name) => {
    expect(nameProblem(name)).toBe('must be well-formed Unicode text: no lone surrogate (U+D800 to U+DFFF)');
  });

  it('refuses any name with a control character, wherever it is', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 90 }),
        fc.constantFrom(
          ...Array.from({ length: 32 }, (_, code) => code),
          ...Array.from({ length: 33 }, (_, i) => 0x7f + i),
        ),
        fc.string({ maxLength: 90 }),
        (before, code, after) => {
          expect(
            v.safeParse(NewPet, { name: `x${before}${String.fromCharCode(code)}${after}`, categoryId: 1 })
              .success,
          ).toBe(false);
        },
      ),
    );
  });
});

describe('a name and a category', () => {
  it('say the safe integer range a JavaScript client can hold', () => {
    // Past 2^53−1 both the integer check and the range check object, in the same words.
    const messages = (categoryId: number) => [
      ...new Set(v.safeParse(NewPet, { name: 'Rex', categoryId }).issues?.map((issue) => issue.message)),
    ];

    expect(messages(2 ** 53)).toEqual(['must be at most 9007199254740991']);
    expect(messages(-(2 ** 53))).toEqual(['must be at least 1']);
    expect(messages(1.5)).toEqual(['must be an integer']);
  });
});

describe('an Idempotency-Key', () => {
  it.each([
    ['empty', ''],
    ['of 256 characters', 'k'.repeat(256)],
    ['with a character beyond ASCII', 'clé'],
    ['with a control character', 'a\tb'],
  ])('is refused %s', (_case, key) => {
    const result = v.safeParse(CreatePetHeaders, { 'idempotency-key': key });

    expect(result.success).toBe(false);
    expect(result.issues?.map((issue) => issue.message)).toEqual([
      'must be 1 to 255 printable ASCII characters',
    ]);
  });

  it('of 1 to 255 printable ASCII characters is taken as it is', () => {
    for (const key of ['k', 'k'.repeat(255), ' ~!"#$%&']) {
      expect(v.parse(CreatePetHeaders, { 'idempotency-key': key })).toEqual({ 'idempotency-key': key });
    }
    expect(v.parse(CreatePetHeaders, {})).toEqual({});
  });
});
