import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client';
import { type LocalApi, startLocalApi } from '../support/local-api';

let api: LocalApi;
let client: ApiClient;

beforeAll(async () => {
  api = await startLocalApi('pets-api');
  client = api.client;
});
afterAll(() => api.close());

describe('POST /v1/pets', () => {
  it('creates a pet, answers 201 with it and its Location', async () => {
    const response = await client.post('/pets', { name: 'Rex', categoryId: 3, status: 'pending' });

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    const pet = response.json as { id: number };
    expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'pending' });
    expect(response.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
  });

  it('gives a pet created without a status the status "available"', async () => {
    const response = await client.post('/pets', { name: 'Tom', categoryId: 1 });

    expect(response.status).toBe(201);
    expect(response.json).toMatchObject({ status: 'available' });
  });

  it('assigns a new id to every pet', async () => {
    const first = await client.post('/pets', { name: 'A', categoryId: 1 });
    const second = await client.post('/pets', { name: 'A', categoryId: 1 });

    expect((second.json as { id: number }).id).not.toBe((first.json as { id: number }).id);
  });

  it('accepts the largest id a JavaScript client can hold as categoryId', async () => {
    const response = await client.post('/pets', { name: 'Big', categoryId: Number.MAX_SAFE_INTEGER });

    expect(response.status).toBe(201);
    expect(response.json).toMatchObject({ categoryId: Number.MAX_SAFE_INTEGER });
  });

  it('accepts a JSON content type with parameters', async () => {
    const response = await client.post('/pets', JSON.stringify({ name: 'Charset', categoryId: 1 }), {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });

    expect(response.status).toBe(201);
  });
});

describe('GET /v1/pets/{petId} (deprecated)', () => {
  it('returns the pet with the Deprecation, Sunset and Link headers', async () => {
    const created = (await client.post('/pets', { name: 'Kitty', categoryId: 2 })).json as { id: number };

    const response = await client.get(`/pets/${created.id}`);

    expect(response.status).toBe(200);
    expect(response.json).toEqual({ id: created.id, name: 'Kitty', categoryId: 2, status: 'available' });
    expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(response.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
  });

  it('returns 404 NOT_FOUND, still deprecated, when the pet does not exist', async () => {
    const response = await client.get('/pets/987654321');

    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('reads a pet back straight after creating it', async () => {
    const ids = await Promise.all(
      Array.from({ length: 5 }, async (_, index) => {
        const created = await client.post('/pets', { name: `Quick ${index}`, categoryId: 1 });
        return (created.json as { id: number }).id;
      }),
    );
    const reads = await Promise.all(ids.map((id) => client.get(`/pets/${id}`)));

    expect(reads.map((read) => read.status)).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('GET /v1/pets', () => {
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

  it('returns only pets with the requested status, oldest first', async () => {
    const response = await own.client.get('/pets?status=sold&limit=100');

    const pets = response.json as { id: number; status: string; name: string }[];
    expect(pets).toHaveLength(8);
    expect(pets.every((pet) => pet.status === 'sold')).toBe(true);
    expect(pets.map((pet) => pet.id)).toEqual([...pets.map((pet) => pet.id)].sort((a, b) => a - b));
    expect(pets[0]?.name).toBe('Pet 3');
  });

  it('applies limit and status together', async () => {
    const response = await own.client.get('/pets?status=available&limit=2');

    expect((response.json as { name: string }[]).map((pet) => pet.name)).toEqual(['Pet 1', 'Pet 4']);
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
