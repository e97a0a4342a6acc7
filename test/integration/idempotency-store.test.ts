import { randomUUID } from 'node:crypto';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPet, createPetEndpoint } from '#functions/create-pet';

import {
  createDocumentClient,
  createDynamoDbClient,
  documentClientOf,
} from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import {
  DynamoDbIdempotencyStore,
  idempotencyTable,
} from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import type { Pet } from '#shared/domain/pet';
import { PetService } from '#shared/domain/pet-service';
import type { PetRepository } from '#shared/ports/pet-repository';
import { lambdaContext } from '#tools/lambda/context';
import { idempotentCreateEvent } from '../support/create-events';
import { FaultProxy } from '../support/fault-proxy';
import { silent } from '../support/observability';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * createPet's idempotency records on a real DynamoDB Local: what a record holds, the calls the
 * store makes, and what a failure leaves behind. Handlers are called in process, as Lambda would.
 */

let tables: TestTables;
let proxy: FaultProxy;
beforeAll(async () => {
  tables = await createTestTables('idem');
  proxy = await FaultProxy.start(tables.endpoint);
});
afterAll(() => proxy.close());

const DAY_SECONDS = 86_400;

/** A client that records the DynamoDB commands sent through it, with their table. */
const recordingClient = (endpoint: string) => {
  const client = createDynamoDbClient({ endpoint });
  const commands: string[] = [];
  const keyOf = new Map(Object.entries(tables.names).map(([key, name]) => [name, key]));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const table = keyOf.get((args.input as { TableName?: string }).TableName ?? '');
      commands.push(`${(context.commandName ?? '').replace(/Command$/, '')} ${table}`);
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return { client: documentClientOf(client), commands };
};

interface CreatePetOptions {
  /** The pets, stored through another DynamoDB endpoint (a proxy) or repository. */
  readonly pets?: (real: PetsTable) => PetRepository;
  readonly petsEndpoint?: string;
  /** Where the records are kept. */
  readonly recordsEndpoint?: string;
  readonly lockMs?: number;
}

/** createPet as its composition root builds it, on these tables, every call recorded. */
const createPetOn = (options: CreatePetOptions = {}) => {
  const recorded = recordingClient(tables.endpoint);
  const petsClient = options.petsEndpoint
    ? createDocumentClient({ endpoint: options.petsEndpoint })
    : recorded.client;
  const recordsClient = options.recordsEndpoint
    ? createDocumentClient({ endpoint: options.recordsEndpoint })
    : recorded.client;
  const real = new PetsTable({ client: petsClient, petsTable: tables.names.pets });
  const handler = createPetEndpoint({
    pets: new PetService({
      pets: options.pets?.(real) ?? real,
      ids: new DynamoDbIdSequence({
        client: recorded.client,
        countersTable: tables.names.counters,
        sequence: PET_ID_SEQUENCE,
      }),
      records: new DynamoDbIdempotencyStore({
        client: recordsClient,
        idempotencyTable: tables.names.idempotency,
        keyPrefix: createPet.operationId,
        retentionSeconds: createPet.idempotency.retentionSeconds,
      }),
      ...(options.lockMs ? { lockMs: options.lockMs } : {}),
    }),
    ...silent(),
  });
  return { handler, commands: recorded.commands };
};

const post = idempotentCreateEvent;

const invoke = (handler: ReturnType<typeof createPetOn>['handler'], event: ReturnType<typeof post>) =>
  handler(event, lambdaContext('createPet', { timeoutMs: 15_000 })) as Promise<APIGatewayProxyResult>;

/** Every record of the idempotency table, as stored. */
const records = async (): Promise<Record<string, unknown>[]> => {
  const client = createDocumentClient({ endpoint: tables.endpoint });
  try {
    const { Items = [] } = await client.send(new ScanCommand({ TableName: tables.names.idempotency }));
    return Items;
  } finally {
    client.destroy();
  }
};

/** The records made by `work`. */
const recordsMadeBy = async (work: () => Promise<unknown>): Promise<Record<string, unknown>[]> => {
  const before = new Set((await records()).map((record) => record.id));
  await work();
  return (await records()).filter((record) => !before.has(record.id));
};

describe('a record', () => {
  it('keeps the pet of the first 201 under a hashed, per-operation key for 24 hours, with a TTL DynamoDB deletes it by', async () => {
    const { handler } = createPetOn();
    const startedSeconds = Date.now() / 1000;
    let response: APIGatewayProxyResult | undefined;

    const [record, ...others] = await recordsMadeBy(async () => {
      response = await invoke(handler, post(randomUUID(), { name: 'Kept', categoryId: 1 }, 'key-secret'));
    });

    const pet = JSON.parse(response?.body ?? '{}') as Pet;
    expect(others).toEqual([]);
    expect(record).toEqual({
      id: expect.stringMatching(/^createPet#v2#[A-Za-z0-9_-]{43}$/),
      status: 'COMPLETED',
      fingerprint: expect.any(String),
      petId: pet.id,
      pet,
      expiration: expect.any(Number),
    });
    expect(record?.expiration).toBeGreaterThanOrEqual(Math.floor(startedSeconds + DAY_SECONDS));
    expect(record?.expiration).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000 + DAY_SECONDS));
    expect(JSON.stringify(record)).not.toContain('key-secret');
  });

  it('holds the id reserved for the pet, and the lock of its request, before the pet is written', async () => {
    let entered!: () => void;
    let release!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { handler } = createPetOn({
      lockMs: 60_000,
      pets: (real) => ({
        create: async (pet) => {
          entered();
          await released;
          await real.create(pet);
        },
      }),
    });
    const startedMs = Date.now();
    const before = new Set((await records()).map((record) => record.id));

    const first = invoke(handler, post(randomUUID(), { name: 'Reserved', categoryId: 1 }));
    await inFlight;
    const [record] = (await records()).filter((candidate) => !before.has(candidate.id));
    release();
    const response = await first;

    expect(record).toMatchObject({
      status: 'IN_PROGRESS',
      petId: (JSON.parse(response.body) as Pet).id,
      lockToken: expect.any(String),
    });
    expect(record?.lockUntil).toBeGreaterThanOrEqual(startedMs + 60_000);
    expect(record?.lockUntil).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('is kept, with its id, when the pet could not be written, and its lock released: a retry at once writes that id', async () => {
    proxy.drop();
    try {
      const key = randomUUID();
      const body = { name: 'Kept id', categoryId: 1 };
      // The pets table refuses every connection: the write fails at once, and nothing is stored.
      const failing = createPetOn({ petsEndpoint: proxy.endpoint });

      const [record] = await recordsMadeBy(async () => {
        const failed = await invoke(failing.handler, post(key, body));
        expect(failed.statusCode).toBe(503);
      });
      const retried = await invoke(createPetOn().handler, post(key, body));

      expect(record).toMatchObject({ status: 'IN_PROGRESS', lockUntil: 0, petId: expect.any(Number) });
      expect(retried.statusCode).toBe(201);
      expect(retried.headers?.['Idempotent-Replayed']).toBeUndefined();
      expect((JSON.parse(retried.body) as Pet).id).toBe(record?.petId);
    } finally {
      proxy.resume();
    }
  });

  it('that is not a valid record is never acted on: the repeat answers 500 and adds no pet', async () => {
    const key = randomUUID();
    const body = { name: 'Garbled', categoryId: 1 };
    const { handler } = createPetOn();
    const [record] = await recordsMadeBy(() => invoke(handler, post(key, body)));
    const client = createDocumentClient({ endpoint: tables.endpoint });
    await client.send(
      new PutCommand({
        TableName: tables.names.idempotency,
        Item: { ...record, status: 'HALF_DONE', pet: 'not a pet' },
      }),
    );
    client.destroy();

    const repeat = await invoke(handler, post(key, body));

    expect(repeat.statusCode).toBe(500);
    expect(JSON.parse(repeat.body)).toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});

describe('the calls of a create with a key', () => {
  it('are exactly the declared ones: the record started with PutItem and completed with UpdateItem; a replay only tries the PutItem', async () => {
    const { handler, commands } = createPetOn();
    const key = randomUUID();

    await invoke(handler, post(key, { name: 'Calls', categoryId: 1 }));
    const firstCalls = commands.splice(0);
    await invoke(handler, post(key, { name: 'Calls', categoryId: 1 }));

    // The id is reserved before the record is started, so that the record can hold it: the first
    // create of an instance leases a block of ids (the counter), the replay takes the next id of
    // that block from memory, and the record answers it.
    expect(firstCalls).toEqual([
      'UpdateItem counters',
      'PutItem idempotency',
      'PutItem pets',
      'UpdateItem idempotency',
    ]);
    expect(commands).toEqual(['PutItem idempotency']);
    const declared = idempotencyTable.allow('records').data.flatMap((access) => access.actions);
    for (const call of [...firstCalls, ...commands].filter((command) => command.endsWith('idempotency'))) {
      expect(declared).toContain(`dynamodb:${call.split(' ')[0]}`);
    }
  });
});

describe('a create with a key', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the idempotency table cannot be reached, and stores no pet', async () => {
    const stored: Pet[] = [];
    const { handler } = createPetOn({
      recordsEndpoint: 'http://127.0.0.1:9',
      pets: () => ({
        create: async (pet) => void stored.push(pet),
      }),
    });

    const response = await invoke(handler, post(randomUUID(), { name: 'Unreachable', categoryId: 1 }));

    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(stored).toEqual([]);
  });

  it('scopes a key to the API key that sent it', async () => {
    const { handler } = createPetOn();
    const key = randomUUID();

    const mine = await invoke(handler, post(key, { name: 'Scoped', categoryId: 1 }, 'key-a'));
    const theirs = await invoke(handler, post(key, { name: 'Scoped', categoryId: 1 }, 'key-b'));

    expect([mine.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(JSON.parse(theirs.body).id).not.toBe(JSON.parse(mine.body).id);
  });

  it('refuses another body with 422, and leaves the first record as it was', async () => {
    const { handler } = createPetOn();
    const key = randomUUID();
    const [before] = await recordsMadeBy(() => invoke(handler, post(key, { name: 'First', categoryId: 1 })));

    const reused = await invoke(handler, post(key, { name: 'First', categoryId: 1, status: 'available' }));

    expect(reused.statusCode).toBe(422);
    expect(JSON.parse(reused.body)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect((await records()).find((record) => record.id === before?.id)).toEqual(before);
  });
});
