import assert from 'node:assert/strict';
import { assertAtLeast, assertAtMost, assertError } from './assertions';
import { type ContractArea, check, creating, eachCase, notApplicable } from './check';
import { smokeName } from './target';

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

      assert.equal(response.status, 201);
      const pet = response.json as Pet;
      assert.equal(typeof pet.id, 'number');
      assert.deepEqual(pet, { id: pet.id, name, categoryId: 3, status: 'pending' });
      assert.equal(response.headers.get('location'), `/v1/pets/${pet.id}`);
    }),

    creating('POST /pets gives a pet created without a status the status "available"', async ({ api }) => {
      const response = await api.post('/pets', { name: smokeName('tom'), categoryId: 1 });

      assert.equal(response.status, 201);
      assert.equal((response.json as Pet).status, 'available');
    }),

    creating('POST /pets assigns a new id to every pet, even with the same body', async ({ api }) => {
      const body = { name: smokeName('twin'), categoryId: 1 };

      const first = await api.post('/pets', body);
      const second = await api.post('/pets', body);

      assert.notEqual((second.json as Pet).id, (first.json as Pet).id);
    }),

    creating(
      'POST /pets accepts the largest id a JavaScript client can hold as categoryId',
      async ({ api }) => {
        const response = await api.post('/pets', {
          name: smokeName('big'),
          categoryId: Number.MAX_SAFE_INTEGER,
        });

        assert.equal(response.status, 201);
        assert.equal((response.json as Pet).categoryId, Number.MAX_SAFE_INTEGER);
      },
    ),

    creating('POST /pets accepts a name of exactly 200 characters', async ({ api }) => {
      const name = smokeName('long').padEnd(200, 'x');

      assert.equal((await api.post('/pets', { name, categoryId: 1 })).status, 201);
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

        assert.equal(response.status, 201);
      },
      { creates: true },
    ),

    creating(
      'GET /pets/{petId} returns the pet with the Deprecation, Sunset and Link headers',
      async ({ api }) => {
        const created = (await api.post('/pets', { name: smokeName('kitty'), categoryId: 2 })).json as Pet;

        const response = await api.get(`/pets/${created.id}`);

        assert.equal(response.status, 200);
        assert.deepEqual(response.json, created);
        assert.equal(response.headers.get('deprecation'), DEPRECATION.deprecation);
        assert.equal(response.headers.get('sunset'), DEPRECATION.sunset);
        assert.equal(response.headers.get('link'), DEPRECATION.link);
      },
    ),

    check(
      'GET /pets/{petId} answers 404 NOT_FOUND, still deprecated, when no pet has the id',
      async ({ api }) => {
        const response = await api.get(`/pets/${NEVER_ASSIGNED}`);

        assertError(response, 404, 'NOT_FOUND');
        assert.equal(response.headers.get('sunset'), DEPRECATION.sunset);
        assert.equal(response.headers.get('deprecation'), DEPRECATION.deprecation);
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

      assert.deepEqual(
        reads.map((read) => read.status),
        [200, 200, 200, 200, 200],
      );
    }),

    creating(
      'GET /pets returns at most 20 pets without a limit, and at most `limit` with one',
      async ({ api }) => {
        await api.post('/pets', { name: smokeName('listed'), categoryId: 1 });

        const unlimited = (await api.get('/pets')).json as Pet[];
        const one = (await api.get('/pets?limit=1')).json as Pet[];

        assertAtLeast(unlimited.length, 1);
        assertAtMost(unlimited.length, 20);
        assert.equal(one.length, 1);
      },
    ),

    creating('GET /pets?status= returns only pets with that status, each once', async ({ api }) => {
      await api.post('/pets', { name: smokeName('sold'), categoryId: 1, status: 'sold' });

      const pets = (await api.get('/pets?status=sold&limit=100')).json as Pet[];

      assertAtLeast(pets.length, 1);
      assert.deepEqual(
        pets.filter((pet) => pet.status !== 'sold'),
        [],
      );
      const ids = pets.map((pet) => pet.id);
      assert.equal(new Set(ids).size, ids.length);
    }),

    check('GET /pets lists nothing but pets, each with exactly its four fields', async ({ api }) => {
      const pets = (await api.get('/pets?limit=100')).json as Record<string, unknown>[];

      if (pets.length === 0) notApplicable('the stage holds no pet to look at');
      for (const pet of pets)
        assert.deepEqual(Object.keys(pet).sort(), ['categoryId', 'id', 'name', 'status']);
    }),

    check('GET /pets/ (a trailing slash) is the same resource as /pets', async ({ api }) => {
      const response = await api.get('/pets/?limit=1');

      assert.equal(response.status, 200);
      assert.ok(Array.isArray(response.json), `Expected a list, got ${response.text}`);
    }),
  ],
};
