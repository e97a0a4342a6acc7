import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { type LocalApi, startLocalApi } from '../support/local-api';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi('concurrency');
});
afterAll(() => api.close());

/** Every pet stored in the API's table, read behind its back (a listing stops at 100). */
const storedPets = async (): Promise<{ id: number; name: string }[]> => {
  const client = createDocumentClient({ endpoint: api.tables.endpoint });
  const pets: { id: number; name: string }[] = [];
  for await (const page of paginateScan({ client }, { TableName: api.tables.names.pets })) {
    pets.push(...((page.Items ?? []) as { id: number; name: string }[]));
  }
  client.destroy();
  return pets;
};

/**
 * Measured: 2–10 s for the burst on a 2-core machine, the longer with both cores kept busy by
 * other work; four times the worst of it, so a busy machine never fails it on time alone.
 */
const BURST_TIMEOUT_MS = 40_000;

describe('concurrent creates', () => {
  it(
    'answers a burst of 300 simultaneous creates with 300 × 201, 300 distinct ids, and loses none',
    async () => {
      const responses = await Promise.all(
        Array.from({ length: 300 }, (_, index) =>
          api.client.post('/pets', { name: `Pet ${index}`, categoryId: 1 }),
        ),
      );

      expect(responses.map((response) => response.status)).toEqual(Array(300).fill(201));
      const ids = responses.map((response) => (response.json as { id: number }).id);
      expect(new Set(ids).size).toBe(300);
      const stored = await storedPets();
      expect(stored.map((pet) => pet.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(stored.map((pet) => pet.name)).size).toBe(300);
      const listed = (await api.client.get('/pets?limit=100')).json as { id: number }[];
      expect(listed).toHaveLength(100);
    },
    BURST_TIMEOUT_MS,
  );
});
