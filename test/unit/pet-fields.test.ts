import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { isStoredPet, petItem } from '#shared/adapters/dynamodb/pet-items';
import { fingerprintOf } from '#shared/domain/idempotency';
import {
  createdPet,
  MAX_ID,
  NewPet,
  PET_FIELD_NAMES,
  PET_FIELDS,
  Pet,
  type PetField,
  PetPatch,
  StoredPet,
} from '#shared/domain/pet';
import { entriesOf, objectArbitraryOf } from '../support/schema-arbitrary';

/**
 * A pet's fields are declared once (PET_FIELDS): the requests and pets here are generated from that
 * declaration, so a field added to it is covered without a line of this file changing.
 */

const newPets = objectArbitraryOf(entriesOf(NewPet)) as fc.Arbitrary<NewPet>;
const ids = fc.integer({ min: 1, max: MAX_ID });

/** `base` with one field taken from `other` (left out where `other` leaves it out). */
const withFieldOf = (base: NewPet, other: NewPet, field: string): NewPet => {
  const { [field]: _dropped, ...rest } = base as Record<string, unknown>;
  const value = (other as Record<string, unknown>)[field];
  return (value === undefined ? rest : { ...rest, [field]: value }) as NewPet;
};

/** Two requests that differ in exactly one field, in its value or in being sent at all. */
const requestsDifferingInOneField = fc
  .tuple(newPets, newPets, fc.constantFrom(...PET_FIELD_NAMES))
  .map(([base, other, field]) => ({ field, first: base, second: withFieldOf(base, other, field) }))
  .filter(({ first, second }) => !isDeepStrictEqual(first, second));

/** The fingerprint as it was computed before the fields were declared once: today's records hold it. */
const fingerprintBeforeTheDeclaration = (newPet: {
  readonly name: string;
  readonly categoryId: number;
  readonly status?: string | undefined;
}): string =>
  createHash('sha256')
    .update(JSON.stringify([newPet.name, newPet.categoryId, newPet.status ?? null]))
    .digest('base64url');

/** Hundreds of generated cases a test: on a loaded 2-core machine more than the unit project's 5 s. */
const PROPERTY_TESTS = { timeout: 30_000 };

describe("a pet's fields, declared once", PROPERTY_TESTS, () => {
  it('make NewPet, PetPatch, Pet and the stored pet of the same fields, in the same order', () => {
    const names = PET_FIELD_NAMES;

    expect(Object.keys(entriesOf(NewPet))).toEqual(names);
    expect(Object.keys(entriesOf(PetPatch))).toEqual(names);
    expect(Object.keys(entriesOf(Pet))).toEqual(['id', ...names]);
    expect(Object.keys(entriesOf(StoredPet))).toEqual(['id', ...names]);
    expect(Object.keys(PET_FIELDS)).toEqual(names);
  });

  it('refuses, in a patch, every field a pet has but its id', () => {
    const patch = v.safeParse(PetPatch, {});

    expect(patch.issues?.map(({ message }) => message)).toEqual([
      `changes nothing: it must set at least one of ${PET_FIELD_NAMES.join(', ')}`,
    ]);
  });

  it('store every field a create sends, and the default of one left out', () => {
    fc.assert(
      fc.property(ids, newPets, (id, newPet) => {
        const pet = createdPet(id, newPet);

        expect(v.parse(Pet, pet)).toEqual(pet);
        for (const field of PET_FIELD_NAMES) {
          const spec: PetField = PET_FIELDS[field];
          expect(pet[field]).toEqual(newPet[field] ?? spec.onCreate?.default);
        }
      }),
    );
  });
});

describe("an idempotent request's fingerprint", PROPERTY_TESTS, () => {
  it('tells apart two requests that differ in any one field, by value or by being sent at all', () => {
    fc.assert(
      fc.property(requestsDifferingInOneField, ({ first, second }) => {
        expect(fingerprintOf(first)).not.toBe(fingerprintOf(second));
      }),
      { numRuns: 300 },
    );
  });

  it('is the same for the same request, however its fields are ordered', () => {
    fc.assert(
      fc.property(newPets, (newPet) => {
        const reordered = Object.fromEntries(Object.entries(newPet).reverse()) as NewPet;

        expect(fingerprintOf(reordered)).toBe(fingerprintOf(newPet));
      }),
    );
  });

  it('is, for the fields pets had when records were first kept, the fingerprint those records hold', () => {
    fc.assert(
      fc.property(newPets, ({ name, categoryId, status }) => {
        const request = status === undefined ? { name, categoryId } : { name, categoryId, status };

        expect(fingerprintOf(request)).toBe(fingerprintBeforeTheDeclaration(request));
      }),
      { numRuns: 300 },
    );
    // Two digests as records of the last 24 hours hold them.
    expect(fingerprintOf({ name: 'Rex', categoryId: 3 })).toBe('HW4dS452EIl2LYV-bZK6_pf-aflyee6BRNZH4RUOid4');
    expect(fingerprintOf({ name: 'Tom', categoryId: 7, status: 'pending' })).toBe(
      'uGn8Kf4G_-oq0hXKm8fDfj87_gQSudkdlMGOLcKR6bg',
    );
  });
});

describe('recognising a retried write', PROPERTY_TESTS, () => {
  it('takes a stored item for the pet only if every field is the same', () => {
    fc.assert(
      fc.property(ids, requestsDifferingInOneField, (id, { first, second }) => {
        const stored = petItem(createdPet(id, first));
        const retried = createdPet(id, second);

        expect(isStoredPet(stored, createdPet(id, first))).toBe(true);
        expect(isStoredPet(stored, retried)).toBe(isDeepStrictEqual(createdPet(id, first), retried));
      }),
      { numRuns: 300 },
    );
  });

  it('never takes the pet of another id for this one', () => {
    fc.assert(
      fc.property(ids, ids, newPets, (id, otherId, newPet) => {
        fc.pre(id !== otherId);

        expect(isStoredPet(petItem(createdPet(otherId, newPet)), createdPet(id, newPet))).toBe(false);
      }),
    );
  });
});
