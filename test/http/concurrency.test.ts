import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi('concurrency');
});
afterAll(() => api.close());

describe('concurrent creates', () => {
  it('gives 100 simultaneous creates 100 distinct ids and loses none', async () => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        api.client.post('/pets', { name: `Pet ${index}`, categoryId: 1 }),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(Array(100).fill(201));
    const ids = responses.map((response) => (response.json as { id: number }).id);
    expect(new Set(ids).size).toBe(100);
    const listed = (await api.client.get('/pets?limit=100')).json as { id: number; name: string }[];
    expect(listed.map((pet) => pet.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(listed.map((pet) => pet.name)).size).toBe(100);
  });
});
