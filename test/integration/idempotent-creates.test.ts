import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPet, createPetEndpoint } from '#functions/create-pet';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { StoreUnavailableError } from '#shared/domain/errors';
import { fingerprintOf } from '#shared/domain/idempotency';
import type { Pet } from '#shared/domain/pet';
import { PetService } from '#shared/domain/pet-service';
import { createLogger } from '#shared/observability/logger';
import { NO_METRICS } from '#shared/observability/metrics';
import { lambdaContext } from '#tools/lambda/context';
import { idempotentCreateEvent } from '../support/create-events';
import { FaultProxy } from '../support/fault-proxy';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * createPet with an Idempotency-Key on DynamoDB Local, around a request in flight or gone: a
 * repeat meanwhile, a retry after its request died, and stores that fail once the record is
 * taken. The failures come from a TCP proxy that drops connections, as a network would.
 */

const CALLER = 'key-idempotent';

let tables: TestTables;
let proxy: FaultProxy;
beforeAll(async () => {
  tables = await createTestTables('idempotent-creates');
  proxy = await FaultProxy.start(tables.endpoint);
});
afterAll(() => proxy.close());

const storeOn = (endpoint: string) =>
  new DynamoDbIdempotencyStore({
    client: createDocumentClient({ endpoint }),
    idempotencyTable: tables.names.idempotency,
    keyPrefix: createPet.operationId,
    retentionSeconds: createPet.idempotency.retentionSeconds,
  });

/** createPet on these tables; `beforeCreate` runs before the pet is stored (to hold it, or fail it). */
const createPetWith = (
  options: { beforeCreate?: (pet: Pet) => Promise<void>; endpoint?: string; lockMs?: number } = {},
) => {
  const client = createDocumentClient({ endpoint: options.endpoint ?? tables.endpoint });
  const real = new PetsTable({ client, petsTable: tables.names.pets });
  const created: Pet[] = [];
  const logger = createLogger({ logLevel: 'SILENT' });
  const errors = vi.spyOn(logger, 'error');
  const handler = createPetEndpoint({
    pets: new PetService({
      pets: {
        create: async (pet) => {
          await options.beforeCreate?.(pet);
          await real.create(pet);
          created.push(pet);
        },
      },
      ids: new DynamoDbIdSequence({
        client: createDocumentClient({ endpoint: tables.endpoint }),
        countersTable: tables.names.counters,
        sequence: PET_ID_SEQUENCE,
      }),
      records: storeOn(options.endpoint ?? tables.endpoint),
      ...(options.lockMs ? { lockMs: options.lockMs } : {}),
      problems: logger,
    }),
    logger,
    metrics: NO_METRICS,
  });
  const post = (key: string, body: unknown) =>
    handler(
      idempotentCreateEvent(key, body, CALLER),
      lambdaContext('createPet', { timeoutMs: 15_000 }),
    ) as Promise<APIGatewayProxyResult>;
  return { post, created, errors };
};

describe('a repeat of a create still in flight', () => {
  it('is refused with 409 and Retry-After, and leaves the first request its record to complete', async () => {
    let entered: () => void = () => undefined;
    let release: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holds = 1;
    const { post, created } = createPetWith({
      lockMs: 60_000,
      beforeCreate: async () => {
        if (holds-- <= 0) return;
        entered();
        await released;
      },
    });
    const key = randomUUID();
    const body = { name: 'Once', categoryId: 5 };

    const first = post(key, body);
    await inFlight;
    const second = await post(key, body);
    const third = await post(key, body);
    release();
    const answer = await first;
    const replay = await post(key, body);

    expect(second.statusCode).toBe(409);
    expect(JSON.parse(second.body)).toMatchObject({
      code: 'IDEMPOTENCY_KEY_IN_USE',
      message:
        'A request with this Idempotency-Key is still in progress; retry after Retry-After seconds to get its answer',
    });
    expect(second.headers?.['Retry-After']).toBe('1');
    expect(third.statusCode).toBe(409);
    expect(answer.statusCode).toBe(201);
    expect([replay.statusCode, replay.body, replay.headers?.['Idempotent-Replayed']]).toEqual([
      201,
      answer.body,
      'true',
    ]);
    expect(created).toHaveLength(1);
  });
});

describe('a retry after its request died', () => {
  it('takes the record over once its lock has expired, and writes the id that request reserved', async () => {
    const key = randomUUID();
    const body = { name: 'Orphan', categoryId: 5 };
    // What a request that died after starting its record leaves: the record, its id, its lock.
    await storeOn(tables.endpoint).start(
      { caller: CALLER, key },
      {
        state: 'in-progress',
        fingerprint: fingerprintOf(body),
        petId: 9_000_001,
        lock: { token: 'the dead request', until: Date.now() - 1 },
      },
    );
    const { post, created } = createPetWith();

    const retried = await post(key, body);
    const repeat = await post(key, body);

    expect(retried.statusCode).toBe(201);
    expect(JSON.parse(retried.body)).toEqual({ id: 9_000_001, ...body, status: 'available' });
    expect(repeat.headers?.['Idempotent-Replayed']).toBe('true');
    expect(repeat.body).toBe(retried.body);
    expect(created).toHaveLength(1);
  });

  it('is refused with 409 while that lock has not expired', async () => {
    const key = randomUUID();
    const body = { name: 'Still held', categoryId: 5 };
    await storeOn(tables.endpoint).start(
      { caller: CALLER, key },
      {
        state: 'in-progress',
        fingerprint: fingerprintOf(body),
        petId: 9_000_002,
        lock: { token: 'a live request', until: Date.now() + 60_000 },
      },
    );
    const { post, created } = createPetWith();

    const retried = await post(key, body);

    expect(retried.statusCode).toBe(409);
    expect(created).toEqual([]);
  });
});

describe('two retries taking over the same record', () => {
  it('let one of them have it: the other meets the lock of the first', async () => {
    const store = storeOn(tables.endpoint);
    const key = { caller: CALLER, key: randomUUID() };
    const expired = { token: 'expired', until: Date.now() - 1 };
    await store.start(key, { state: 'in-progress', fingerprint: 'f', petId: 9_000_003, lock: expired });
    const first = { token: 'first', until: Date.now() + 60_000 };
    const second = { token: 'second', until: Date.now() + 60_000 };

    const taken = await store.takeOver(key, expired, first);
    const refused = await store.takeOver(key, expired, second);

    expect(taken).toEqual({ state: 'in-progress', fingerprint: 'f', petId: 9_000_003, lock: first });
    expect(refused).toEqual(taken);
  });
});

describe('an idempotency table that fails once the record is taken', () => {
  it('still answers 201 once the pet is stored, and logs that the record was not completed', async () => {
    const { post, errors, created } = createPetWith({
      endpoint: proxy.endpoint,
      // The pet's write goes through; the completion of the record, after it, does not.
      beforeCreate: async () => {
        proxy.failAnswers({ operation: 'UpdateItem', table: tables.names.idempotency, fate: 'drop' });
      },
    });

    try {
      const response = await post(randomUUID(), { name: 'Stored', categoryId: 5 });

      expect(response.statusCode).toBe(201);
      expect(created).toHaveLength(1);
      expect(errors).toHaveBeenCalledWith('Idempotency record not completed', {
        error: expect.any(StoreUnavailableError),
      });
    } finally {
      proxy.clearAnswerFaults();
    }
  });

  it("answers the pet write's own failure, and logs that the lock was not released", async () => {
    const { post, errors, created } = createPetWith({
      endpoint: proxy.endpoint,
      beforeCreate: async () => proxy.drop(),
    });

    try {
      const response = await post(randomUUID(), { name: 'Failed', categoryId: 5 });

      expect(response.statusCode).toBe(503);
      expect(created).toEqual([]);
      expect(errors).toHaveBeenCalledWith('Idempotency record not released', {
        error: expect.any(StoreUnavailableError),
      });
    } finally {
      proxy.resume();
    }
  });
});
