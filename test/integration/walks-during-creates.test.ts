import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PETS_BY_STATUS } from '#functions/list-pets';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { type ListPosition, PET_STATUSES, type Pet, type PetStatus } from '#shared/domain/pet';
import { PetService } from '#shared/domain/pet-service';
import { createTestTables } from '../support/tables';

/**
 * The promise of a walk, as a property: whatever pets exist and however many are created while
 * a client walks a status page by page, every pet that exists throughout the walk is seen exactly
 * once, no pet twice, every page but the last is full and none after the first is empty. On
 * DynamoDB Local, with several function instances creating side by side (each with its own
 * blocks of ids, so new ids land anywhere in the walk's order, before or after its position).
 */

const status = fc.constantFrom(...PET_STATUSES);

const scenario = fc.record({
  /** The statuses of the pets that exist before the walk starts. */
  before: fc.array(status, { maxLength: 70 }),
  walked: status,
  /** The page size of each page, in turn (a client may change it from page to page). */
  limits: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 5 }),
  /** Creates started together with each page's request, by status; cycled. */
  during: fc.array(fc.array(status, { maxLength: 6 }), { minLength: 1, maxLength: 8 }),
  instances: fc.integer({ min: 1, max: 3 }),
});

describe('a walk by status while pets are being created', () => {
  it('sees every pet that exists throughout exactly once, and no pet twice', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ before, walked, limits, during, instances }) => {
        const tables = await createTestTables('walk-during-creates');
        const client = createDocumentClient({ endpoint: tables.endpoint });
        try {
          const repository = new PetsTable({ client, petsTable: tables.names.pets });
          // Function instances side by side, each leasing its own blocks of ids.
          const services = Array.from(
            { length: instances },
            () =>
              new PetService({
                pets: repository,
                ids: new DynamoDbIdSequence({
                  client,
                  countersTable: tables.names.counters,
                  sequence: PET_ID_SEQUENCE,
                }),
              }),
          );
          let turn = 0;
          const create = (petStatus: PetStatus): Promise<Pet> => {
            turn += 1;
            const service = services[turn % services.length] as PetService;
            return service
              .create({ name: `Pet ${turn}`, categoryId: 1, status: petStatus })
              .then(({ pet }) => pet);
          };
          const existing = await Promise.all(before.map(create));
          const throughout = existing.filter((pet) => pet.status === walked).map((pet) => pet.id);

          const pages: { limit: number; ids: number[] }[] = [];
          let after: readonly ListPosition[] | undefined;
          do {
            const limit = limits[pages.length % limits.length] as number;
            const creates = during[pages.length % during.length] ?? [];
            const [page] = await Promise.all([
              repository.page(PETS_BY_STATUS, { limit, filter: walked, ...(after ? { after } : {}) }),
              ...creates.map(create),
            ]);
            pages.push({ limit, ids: page.pets.map((pet) => pet.id) });
            expect(page.pets.every((pet) => pet.status === walked)).toBe(true);
            after = page.next;
            if (pages.length > 500) throw new Error('The walk does not end');
          } while (after);

          const seen = pages.flatMap((page) => page.ids);
          expect(new Set(seen).size).toBe(seen.length);
          expect(throughout.filter((id) => !seen.includes(id))).toEqual([]);
          for (const page of pages.slice(0, -1)) expect(page.ids).toHaveLength(page.limit);
          for (const page of pages.slice(1)) expect(page.ids.length).toBeGreaterThan(0);
        } finally {
          client.destroy();
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
