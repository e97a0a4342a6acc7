import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { createIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { generateApiKey } from '#shared/auth/api-key';
import type { Pet } from '#shared/domain/pet';
import { PetService } from '#shared/domain/pet-service';
import { createPetHandler } from '#shared/handlers/create-pet';
import { ApiClient, type ObservedExchange } from '../support/api-client';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { silent } from '../support/observability';
import { apiKeysOf } from '../support/tables';

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi('idempotency');
});
afterAll(() => api.close());

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

/** The pets of this API with a given name: how many a client's retries really created. */
const petsNamed = async (name: string): Promise<Pet[]> => {
  const pets = (await api.client.get('/pets?limit=100')).json as Pet[];
  return pets.filter((pet) => pet.name === name);
};

const expectError = (response: ObservedExchange, status: number, code: string) => {
  expect(response.status).toBe(status);
  expect(response.json).toMatchObject({ code, status, message: expect.any(String) });
};

// Each case has keys and pet names of its own: run side by side.
describe.concurrent('POST /v1/pets with an Idempotency-Key', () => {
  it('answers a repeat with the first 201, its body and Location, plus Idempotent-Replayed, and adds no pet', async () => {
    const key = randomUUID();
    const body = { name: 'Replay', categoryId: 4, status: 'pending' };

    const first = await api.client.post('/pets', body, withKey(key));
    const repeat = await api.client.post('/pets', body, withKey(key));

    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.json).toEqual(first.json);
    expect(repeat.headers.get('location')).toBe(first.headers.get('location'));
    expect(await petsNamed('Replay')).toHaveLength(1);
  });

  it('treats the same JSON written differently as the same body', async () => {
    const key = randomUUID();

    const headers = { 'Idempotency-Key': key, 'Content-Type': 'application/json' };

    const first = await api.client.post('/pets', '{"name":"Spacing","categoryId":5}', { headers });
    const repeat = await api.client.post('/pets', '{ "categoryId": 5,\n  "name": "Spacing" }', { headers });

    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.json).toEqual(first.json);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body, and keeps the first answer', async () => {
    const key = randomUUID();
    const first = await api.client.post('/pets', { name: 'Original', categoryId: 1 }, withKey(key));

    const reused = await api.client.post('/pets', { name: 'Other', categoryId: 1 }, withKey(key));
    const retry = await api.client.post('/pets', { name: 'Original', categoryId: 1 }, withKey(key));

    expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json).toEqual(first.json);
    expect(await petsNamed('Other')).toEqual([]);
    expect(await petsNamed('Original')).toHaveLength(1);
  });

  it('creates exactly one pet from 20 concurrent requests with one key; the others replay it or answer 409', async () => {
    const key = randomUUID();
    const body = { name: 'Stampede', categoryId: 9 };

    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api.client.post('/pets', body, withKey(key))),
    );

    const created = responses.filter((response) => response.status === 201);
    const busy = responses.filter((response) => response.status === 409);
    expect(created.length + busy.length).toBe(20);
    expect(created.filter((response) => response.headers.get('idempotent-replayed') === null)).toHaveLength(
      1,
    );
    expect(new Set(created.map((response) => JSON.stringify(response.json))).size).toBe(1);
    for (const response of busy) {
      expectError(response, 409, 'IDEMPOTENCY_KEY_IN_USE');
      expect(response.headers.get('retry-after')).toBe('1');
    }
    expect(await petsNamed('Stampede')).toHaveLength(1);
    const after = await api.client.post('/pets', body, withKey(key));
    expect(after.json).toEqual(created[0]?.json);
  });

  it('keeps keys apart per API key: the same key from another client adds another pet', async () => {
    const { key: otherApiKey, record } = generateApiKey('another client');
    await apiKeysOf(api.tables).put(record);
    const other = new ApiClient(api.gateway.baseUrl, otherApiKey);
    const key = randomUUID();
    const body = { name: 'Twins', categoryId: 2 };

    const mine = await api.client.post('/pets', body, withKey(key));
    const theirs = await other.post('/pets', body, withKey(key));

    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((theirs.json as Pet).id).not.toBe((mine.json as Pet).id);
    expect(await petsNamed('Twins')).toHaveLength(2);
  });

  it('does not remember a failure: a retry after a 400 is processed anew', async () => {
    const key = randomUUID();

    const refused = await api.client.post('/pets', { name: '', categoryId: 1 }, withKey(key));
    const retried = await api.client.post('/pets', { name: 'Second try', categoryId: 1 }, withKey(key));

    expectError(refused, 400, 'VALIDATION_FAILED');
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('adds a pet per request without the header, as before', async () => {
    const body = { name: 'No key', categoryId: 3 };

    await api.client.post('/pets', body);
    await api.client.post('/pets', body);

    expect(await petsNamed('No key')).toHaveLength(2);
  });

  it.each([
    ['empty', ''],
    ['256 characters long', 'k'.repeat(256)],
    ['not ASCII', 'clé-1'],
    ['a control character', 'key\twith-tab'],
  ])('answers 400 VALIDATION_FAILED on headers.idempotency-key for a key that is %s', async (_case, key) => {
    const response = await api.client.post('/pets', { name: 'Bad key', categoryId: 1 }, withKey(key));

    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.json).toMatchObject({
      details: [{ field: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  });

  it('accepts a key of 255 printable ASCII characters', async () => {
    const key = `${randomUUID()} ~!`.padEnd(255, '#');

    const response = await api.client.post('/pets', { name: 'Long key', categoryId: 1 }, withKey(key));

    expect(response.status).toBe(201);
  });
});

describe('POST /v1/pets while the first request with the key is in flight', () => {
  let held: LocalApi;
  let entered: () => void;
  let release: () => void;
  const inFlight = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    // createPet as its root builds it, except that storing the pet waits until the test says so.
    held = await startLocalApi('idempotency-held', {
      handlers: (tables) => {
        const client = createDynamoDbClient({ endpoint: tables.endpoint });
        const real = new DynamoDbPetRepository({
          client: documentClientOf(client),
          petsTable: tables.names.pets,
        });
        return {
          createPet: createPetHandler({
            pets: new PetService({
              pets: {
                get: (id) => real.get(id),
                list: (options) => real.list(options),
                create: async (pet) => {
                  entered();
                  await released;
                  await real.create(pet);
                },
              },
              ids: new DynamoDbIdSequence({
                client: documentClientOf(client),
                countersTable: tables.names.counters,
                sequence: PET_ID_SEQUENCE,
              }),
            }),
            idempotencyStore: createIdempotencyStore({ client, idempotencyTable: tables.names.idempotency }),
            ...silent(),
          }),
        };
      },
    });
  });
  afterAll(async () => {
    release();
    await held.close();
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After, then the first answer once it is done', async () => {
    const key = randomUUID();
    const body = { name: 'Slow', categoryId: 1 };
    const first = held.client.post('/pets', body, withKey(key));
    await inFlight;

    const meanwhile = await held.client.post('/pets', body, withKey(key));
    // A refused repeat must leave the first request's lock alone, or this one would add a pet.
    const again = await held.client.post('/pets', body, withKey(key));
    release();
    const done = await first;
    const later = await held.client.post('/pets', body, withKey(key));

    expectError(meanwhile, 409, 'IDEMPOTENCY_KEY_IN_USE');
    expect(meanwhile.headers.get('retry-after')).toBe('1');
    expectError(again, 409, 'IDEMPOTENCY_KEY_IN_USE');
    expect(done.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.json).toEqual(done.json);
  });
});
