import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * Listings of a catalogue whose content is known, which only the local server can guarantee:
 * exact counts, orders and pages. What holds on any stage is in the contract suite
 * (tools/contract/operations.ts).
 */

describe('GET /v1/pets on a known catalogue of 25 pets', () => {
  let own: LocalApi;
  beforeAll(async () => {
    own = await startLocalApi('listing');
    for (let index = 1; index <= 25; index += 1) {
      const status = index % 3 === 0 ? 'sold' : index % 3 === 1 ? 'available' : 'pending';
      await own.client.post('/pets', { name: `Pet ${index}`, categoryId: index, status });
    }
  });
  afterAll(() => own.close());

  it('returns 20 pets when no limit is given', async () => {
    const response = await own.client.get('/pets');

    expect(response.status).toBe(200);
    expect(response.json).toHaveLength(20);
  });

  it('returns at most `limit` pets', async () => {
    expect((await own.client.get('/pets?limit=1')).json).toHaveLength(1);
    expect((await own.client.get('/pets?limit=7')).json).toHaveLength(7);
    expect((await own.client.get('/pets?limit=100')).json).toHaveLength(25);
  });

  it('returns only pets with the requested status, shard by shard (id mod 16), ascending id within a shard', async () => {
    const response = await own.client.get('/pets?status=sold&limit=100');

    const pets = response.json as { id: number; status: string; name: string }[];
    expect(pets.every((pet) => pet.status === 'sold')).toBe(true);
    // Created one after the other, on one instance: ids 1 to 25, the sold ones 3, 6 … 24.
    expect(pets.map((pet) => pet.id)).toEqual([18, 3, 21, 6, 24, 9, 12, 15]);
    expect(pets[0]?.name).toBe('Pet 18');
  });

  it('applies limit and status together', async () => {
    const response = await own.client.get('/pets?status=available&limit=2');

    expect((response.json as { name: string }[]).map((pet) => pet.name)).toEqual(['Pet 16', 'Pet 1']);
  });

  it('returns an empty array when no pet has the status', async () => {
    const empty = await startLocalApi('empty');
    try {
      const response = await empty.client.get('/pets?status=pending');
      expect(response.status).toBe(200);
      expect(response.json).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it('lists nothing but pets: the id counter never shows up', async () => {
    const pets = (await own.client.get('/pets?limit=100')).json as Record<string, unknown>[];

    expect(pets).toHaveLength(25);
    for (const pet of pets) expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
  });
});
