import type { NewPet } from '#shared/domain/pet';
import { EXAMPLE_PREFIX } from '#tools/pet-names';

/** The example pets `npm run seed` adds, in order, each named `example-…`; seeded pets stay as they are. */
export const EXAMPLE_PETS: readonly Required<NewPet>[] = [
  { name: `${EXAMPLE_PREFIX}biscuit`, categoryId: 1, status: 'available' },
  { name: `${EXAMPLE_PREFIX}pepper`, categoryId: 1, status: 'available' },
  { name: `${EXAMPLE_PREFIX}rex`, categoryId: 1, status: 'sold' },
  { name: `${EXAMPLE_PREFIX}mochi`, categoryId: 2, status: 'available' },
  { name: `${EXAMPLE_PREFIX}luna`, categoryId: 2, status: 'pending' },
  { name: `${EXAMPLE_PREFIX}kiwi`, categoryId: 3, status: 'available' },
  { name: `${EXAMPLE_PREFIX}sunny`, categoryId: 3, status: 'sold' },
  { name: `${EXAMPLE_PREFIX}nemo`, categoryId: 4, status: 'available' },
  { name: `${EXAMPLE_PREFIX}shelly`, categoryId: 5, status: 'pending' },
  { name: `${EXAMPLE_PREFIX}clover`, categoryId: 6, status: 'available' },
];
