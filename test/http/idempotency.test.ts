import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPet, createPetEndpoint } from '#functions/create-pet';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { generateApiKey } from '#shared/auth/api-key';
import type { Pet } from '#shared/domain/pet';
import { PetService } from '#shared/domain/pet-service';
import type { ObservedExchange } from '#tools/contract/api-client';
import { checkedClient, type LocalApi, startLocalApi } from '../support/local-api';
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

/**
 * What only the local server can show about Idempotency-Key: how many pets the table really
 * holds after repeats, keys of two API keys, and a first request held in flight. What a client
 * sees on any stage (replays, 422, 409, refused keys) is in the contract suite
 * (tools/contract/idempotency.ts).
 */

// Each case has keys and pet names of its own: run side by side.
describe.concurrent('POST /v1/pets with an Idempotency-Key, as the table sees it', () => {
  it('stores one pet for a key, whatever repeats: a replay, another body, 20 at once', async () => {
    const key = randomUUID();
    const body = { name: 'Stored once', categoryId: 4 };

    await api.client.post('/pets', body, withKey(key));
    await api.client.post('/pets', body, withKey(key));
    await api.client.post('/pets', { name: 'Not stored', categoryId: 4 }, withKey(key));
    await Promise.all(Array.from({ length: 20 }, () => api.client.post('/pets', body, withKey(key))));

    expect(await petsNamed('Stored once')).toHaveLength(1);
    expect(await petsNamed('Not stored')).toEqual([]);
  });

  it('stores one pet per request without the header', async () => {
    const body = { name: 'No key', categoryId: 3 };

    await api.client.post('/pets', body);
    await api.client.post('/pets', body);

    expect(await petsNamed('No key')).toHaveLength(2);
  });

  it('keeps keys apart per API key: the same key from another client adds another pet', async () => {
    const { key: otherApiKey, record } = generateApiKey('another client');
    await apiKeysOf(api.tables).put(record);
    const other = checkedClient(api.gateway.baseUrl, otherApiKey);
    const key = randomUUID();
    const body = { name: 'Twins', categoryId: 2 };

    const mine = await api.client.post('/pets', body, withKey(key));
    const theirs = await other.post('/pets', body, withKey(key));

    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((theirs.json as Pet).id).not.toBe((mine.json as Pet).id);
    expect(await petsNamed('Twins')).toHaveLength(2);
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
        const client = createDocumentClient({ endpoint: tables.endpoint });
        const real = new PetsTable({ client, petsTable: tables.names.pets });
        return {
          createPet: createPetEndpoint({
            pets: new PetService({
              pets: {
                create: async (pet) => {
                  entered();
                  await released;
                  await real.create(pet);
                },
              },
              ids: new DynamoDbIdSequence({
                client,
                countersTable: tables.names.counters,
                sequence: PET_ID_SEQUENCE,
              }),
              records: new DynamoDbIdempotencyStore({
                client,
                idempotencyTable: tables.names.idempotency,
                keyPrefix: createPet.operationId,
                retentionSeconds: createPet.idempotency.retentionSeconds,
              }),
              // However slow this machine, the first request keeps its record while the test holds it.
              lockMs: 60_000,
            }),
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
