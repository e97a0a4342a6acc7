import { beforeAll, describe, expect, it } from 'vitest';
import { writablePetService } from '#shared/composition';
import type { PetService } from '#shared/domain/pet-service';
import { createTestTables } from '../support/tables';

describe('pet service on DynamoDB Local', () => {
  let pets: PetService;
  beforeAll(async () => {
    pets = writablePetService((await createTestTables('repo')).env);
  });

  it('reads back a created pet', async () => {
    const created = await pets.create({ name: 'Rex', categoryId: 3 });
    expect(await pets.get(created.id)).toEqual({
      id: created.id,
      name: 'Rex',
      categoryId: 3,
      status: 'available',
    });
  });
});
