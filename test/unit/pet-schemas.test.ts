import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ID, NewPet, PET_STATUSES } from '#shared/domain/pet';
import { requestSchema } from '#shared/http/middleware/validate-request';
import { getPet } from '#shared/operations/get-pet';
import { listPets } from '#shared/operations/list-pets';

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
          expect(NewPet.parse(pet)).toEqual(pet);
        },
      ),
    );
  });

  it('rejects any extra field, whatever its name', () => {
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1 })
          .filter((key) => !['name', 'categoryId', 'status', '__proto__'].includes(key)),
        fc.jsonValue(),
        (key, value) => {
          expect(NewPet.safeParse({ name: 'Rex', categoryId: 1, [key]: value }).success).toBe(false);
        },
      ),
    );
  });

  it('rejects ids a JavaScript client could not hold exactly', () => {
    expect(NewPet.safeParse({ name: 'Rex', categoryId: MAX_ID + 1 }).success).toBe(false);
    expect(NewPet.safeParse({ name: 'Rex', categoryId: MAX_ID }).success).toBe(true);
  });
});

describe('listPets query', () => {
  it('defaults limit to 20 and leaves status unset', () => {
    expect(listPetsRequest.parse({ query: {} })).toEqual({ query: { limit: 20 } });
  });

  it('decodes every limit from 1 to 100 and refuses every other integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000, max: 1_000 }), (limit) => {
        const result = listPetsRequest.safeParse({ query: { limit: String(limit) } });
        expect(result.success).toBe(limit >= 1 && limit <= 100);
        if (result.success) expect(result.data.query.limit).toBe(limit);
      }),
    );
  });

  it('refuses any limit that is not written as an integer', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !/^-?\d+$/.test(text)),
        (limit) => {
          expect(listPetsRequest.safeParse({ query: { limit } }).success).toBe(false);
        },
      ),
    );
  });
});

describe('getPet path', () => {
  it('decodes any id in 1..2^53−1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ID }), (id) => {
        expect(getPetRequest.parse({ path: { petId: String(id) } })).toEqual({ path: { petId: id } });
      }),
    );
  });
});
