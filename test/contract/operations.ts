import { expect } from 'vitest';
import { type ContractArea, check, creating, eachCase, expectError, smokeName } from './target';

/** The three operations doing their job, as any client sees them on any stage. */

type Pet = { id: number; name: string; categoryId: number; status: string };

const DEPRECATION = {
  deprecation: '@1795219200',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: '</v1/pets>; rel="successor-version"',
};

/** An id no pet has: the largest the API accepts, which no stage will reach. */
const NEVER_ASSIGNED = Number.MAX_SAFE_INTEGER;

export const OPERATIONS_AREA: ContractArea = {
  area: 'the operations',
  checks: [
    creating('POST /pets creates a pet and answers 201 with it and its Location', async ({ api }) => {
      const name = smokeName('rex');

      const response = await api.post('/pets', { name, categoryId: 3, status: 'pending' });

      expect(response.status).toBe(201);
      const pet = response.json as Pet;
      expect(pet).toEqual({ id: expect.any(Number), name, categoryId: 3, status: 'pending' });
      expect(response.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
    }),

    creating('POST /pets gives a pet created without a status the status "available"', async ({ api }) => {
      const response = await api.post('/pets', { name: smokeName('tom'), categoryId: 1 });

      expect(response.status).toBe(201);
      expect(response.json).toMatchObject({ status: 'available' });
    }),

    creating('POST /pets assigns a new id to every pet, even with the same body', async ({ api }) => {
      const body = { name: smokeName('twin'), categoryId: 1 };

      const first = await api.post('/pets', body);
      const second = await api.post('/pets', body);

      expect((second.json as Pet).id).not.toBe((first.json as Pet).id);
    }),

    creating(
      'POST /pets accepts the largest id a JavaScript client can hold as categoryId',
      async ({ api }) => {
        const response = await api.post('/pets', {
          name: smokeName('big'),
          categoryId: Number.MAX_SAFE_INTEGER,
        });

        expect(response.status).toBe(201);
        expect(response.json).toMatchObject({ categoryId: Number.MAX_SAFE_INTEGER });
      },
    ),

    creating('POST /pets accepts a name of exactly 200 characters', async ({ api }) => {
      const name = smokeName('long').padEnd(200, 'x');

      expect((await api.post('/pets', { name, categoryId: 1 })).status).toBe(201);
    }),

    ...eachCase(
      [
        ['application/json; charset=utf-8'],
        ['Application/JSON'],
        ['application/json ; charset=UTF-8'],
        ['APPLICATION/JSON;CHARSET="utf-8"'],
      ],
      ([contentType]) => `POST /pets reads Content-Type ${contentType} as application/json (RFC 9110)`,
      async ({ api }, [contentType]) => {
        const body = JSON.stringify({ name: smokeName('typed'), categoryId: 1 });

        const response = await api.post('/pets', body, { headers: { 'Content-Type': contentType } });

        expect(response.status).toBe(201);
      },
      { creates: true },
    ),

    creating(
      'GET /pets/{petId} returns the pet with the Deprecation, Sunset and Link headers',
      async ({ api }) => {
        const created = (await api.post('/pets', { name: smokeName('kitty'), categoryId: 2 })).json as Pet;

        const response = await api.get(`/pets/${created.id}`);

        expect(response.status).toBe(200);
        expect(response.json).toEqual(created);
        expect(response.headers.get('deprecation')).toBe(DEPRECATION.deprecation);
        expect(response.headers.get('sunset')).toBe(DEPRECATION.sunset);
        expect(response.headers.get('link')).toBe(DEPRECATION.link);
      },
    ),

    check(
      'GET /pets/{petId} answers 404 NOT_FOUND, still deprecated, when no pet has the id',
      async ({ api }) => {
        const response = await api.get(`/pets/${NEVER_ASSIGNED}`);

        expectError(response, 404, 'NOT_FOUND');
        expect(response.headers.get('sunset')).toBe(DEPRECATION.sunset);
        expect(response.headers.get('deprecation')).toBe(DEPRECATION.deprecation);
      },
    ),

    creating('GET /pets/{petId} reads back pets created an instant before', async ({ api }) => {
      const created = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          api.post('/pets', { name: smokeName(`quick${index}`), categoryId: 1 }),
        ),
      );

      const reads = await Promise.all(
        created.map((response) => api.get(`/pets/${(response.json as Pet).id}`)),
      );

      expect(reads.map((read) => read.status)).toEqual([200, 200, 200, 200, 200]);
    }),

    creating(
      'GET /pets returns at most 20 pets without a limit, and at most `limit` with one',
      async ({ api }) => {
        await api.post('/pets', { name: smokeName('listed'), categoryId: 1 });

        const unlimited = (await api.get('/pets')).json as Pet[];
        const one = (await api.get('/pets?limit=1')).json as Pet[];

        expect(unlimited.length).toBeGreaterThanOrEqual(1);
        expect(unlimited.length).toBeLessThanOrEqual(20);
        expect(one).toHaveLength(1);
      },
    ),

    creating('GET /pets?status= returns only pets with that status, each once', async ({ api }) => {
      await api.post('/pets', { name: smokeName('sold'), categoryId: 1, status: 'sold' });

      const pets = (await api.get('/pets?status=sold&limit=100')).json as Pet[];

      expect(pets.length).toBeGreaterThanOrEqual(1);
      expect(pets.every((pet) => pet.status === 'sold')).toBe(true);
      const ids = pets.map((pet) => pet.id);
      expect(new Set(ids).size).toBe(ids.length);
    }),

    check('GET /pets lists nothing but pets, each with exactly its four fields', async ({ api }) => {
      const pets = (await api.get('/pets?limit=100')).json as Record<string, unknown>[];

      for (const pet of pets) expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
    }),

    check('GET /pets/ (a trailing slash) is the same resource as /pets', async ({ api }) => {
      const response = await api.get('/pets/?limit=1');

      expect(response.status).toBe(200);
      expect(Array.isArray(response.json)).toBe(true);
    }),
  ],
};
