import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPetHandler } from '#functions/create-pet/handler';
import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';
import { createDynamoDbClient, createLocalClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { createIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { StoreUnavailableError } from '#shared/domain/errors';
import { PetService } from '#shared/domain/pet-service';
import type { PetRepository } from '#shared/ports/pet-repository';
import { lambdaContext } from '#tools/lambda/context';
import { idempotentCreateEvent } from '../support/create-events';
import { silent } from '../support/observability';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * createPet's idempotency on a real DynamoDB Local: Powertools' persistence through the adapter,
 * the records it leaves, and the calls it makes. Handlers are called in process, as Lambda would.
 */

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables('idem');
});

const DAY_SECONDS = 86_400;

/** A client that records the DynamoDB commands sent through it. */
const recordingClient = (endpoint: string) => {
  const client = createDynamoDbClient({ endpoint });
  const commands: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return { client, commands };
};

/** createPet as its composition root builds it, on these tables; the pet repository may be swapped. */
const createPetOn = (options: { pets?: PetRepository; endpoint?: string } = {}) => {
  const recorded = recordingClient(options.endpoint ?? tables.endpoint);
  const documents = documentClientOf(recordingClient(tables.endpoint).client);
  const handler = createPetHandler({
    pets: new PetService({
      pets: options.pets ?? new DynamoDbPetRepository({ client: documents, petsTable: tables.names.pets }),
      ids: new DynamoDbIdSequence({
        client: documents,
        countersTable: tables.names.counters,
        sequence: PET_ID_SEQUENCE,
      }),
    }),
    idempotencyStore: createIdempotencyStore({
      client: recorded.client,
      idempotencyTable: tables.names.idempotency,
    }),
    ...silent(),
  });
  return { handler, commands: recorded.commands };
};

const post = idempotentCreateEvent;

const invoke = (
  handler: ReturnType<typeof createPetOn>['handler'],
  event: ReturnType<typeof post>,
  remainingMs = 10_000,
) => handler(event, lambdaContext('createPet', { timeoutMs: remainingMs })) as Promise<APIGatewayProxyResult>;

/** Every record of the idempotency table, as stored. */
const records = async (): Promise<Record<string, unknown>[]> => {
  const client = createLocalClient(tables.endpoint);
  try {
    const { Items = [] } = await documentClientOf(client).send(
      new ScanCommand({ TableName: tables.names.idempotency }),
    );
    return Items;
  } finally {
    client.destroy();
  }
};
const recordsNow = async () => new Set((await records()).map((record) => record.id));

describe('the idempotency store', () => {
  it('keeps the first 201 under a hashed, per-operation key for 24 hours, with a TTL DynamoDB deletes it by', async () => {
    const before = new Set(await recordsNow());
    const { handler } = createPetOn();
    const startedSeconds = Date.now() / 1000;

    const response = await invoke(handler, post(randomUUID(), { name: 'Kept', categoryId: 1 }));

    const [record] = (await records()).filter((candidate) => !before.has(candidate.id));
    expect(record).toMatchObject({
      id: expect.stringMatching(/^createPet#[A-Za-z0-9+/]{43}=$/),
      status: 'COMPLETED',
      data: {
        statusCode: 201,
        body: response.body,
        headers: expect.objectContaining({ Location: expect.any(String) }),
      },
      validation: expect.any(String),
    });
    expect(record?.expiration).toBeGreaterThanOrEqual(Math.floor(startedSeconds + DAY_SECONDS));
    expect(record?.expiration).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000 + DAY_SECONDS));
    expect(JSON.stringify(record)).not.toContain('key-test');
  });

  it('makes exactly the calls access.ts declares for it: PutItem then UpdateItem, GetItem never needed', async () => {
    const { handler, commands } = createPetOn();
    const key = randomUUID();

    await invoke(handler, post(key, { name: 'Calls', categoryId: 1 }));
    await invoke(handler, post(key, { name: 'Calls', categoryId: 1 }));

    const declared = DATA_ACCESS.idempotency.record.flatMap((access) => access.actions);
    expect(commands).toEqual(['PutItemCommand', 'UpdateItemCommand', 'PutItemCommand']);
    for (const command of commands) {
      expect(declared).toContain(`dynamodb:${command.replace(/Command$/, '')}`);
    }
  });

  it('holds an in-progress record only until the Lambda deadline, so a crashed request cannot lock its key for a day', async () => {
    let entered!: () => void;
    let release!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const real = new DynamoDbPetRepository({
      client: documentClientOf(createDynamoDbClient({ endpoint: tables.endpoint })),
      petsTable: tables.names.pets,
    });
    const { handler } = createPetOn({
      pets: {
        get: (id) => real.get(id),
        list: (options) => real.list(options),
        create: async (pet) => {
          entered();
          await released;
          await real.create(pet);
        },
      },
    });
    const before = new Set(await recordsNow());
    const startedMs = Date.now();

    const first = invoke(handler, post(randomUUID(), { name: 'Deadline', categoryId: 1 }), 7_000);
    await inFlight;
    const [record] = (await records()).filter((candidate) => !before.has(candidate.id));
    release();
    await first;

    expect(record?.status).toBe('INPROGRESS');
    expect(record?.in_progress_expiration).toBeGreaterThanOrEqual(startedMs + 6_000);
    expect(record?.in_progress_expiration).toBeLessThanOrEqual(Date.now() + 7_000);
  });

  it('deletes the record of a request that failed, so that its retry creates the pet', async () => {
    let failures = 1;
    const real = new DynamoDbPetRepository({
      client: documentClientOf(createDynamoDbClient({ endpoint: tables.endpoint })),
      petsTable: tables.names.pets,
    });
    const { handler, commands } = createPetOn({
      pets: {
        get: (id) => real.get(id),
        list: (options) => real.list(options),
        create: async (pet) => {
          if (failures-- > 0) throw new StoreUnavailableError('throttled');
          await real.create(pet);
        },
      },
    });
    const key = randomUUID();
    const body = { name: 'Flaky', categoryId: 1 };
    const before = await recordsNow();

    const failed = await invoke(handler, post(key, body));
    const afterFailure = await recordsNow();
    const retried = await invoke(handler, post(key, body));

    expect(failed.statusCode).toBe(503);
    expect(afterFailure).toEqual(before);
    expect(commands.slice(0, 2)).toEqual(['PutItemCommand', 'DeleteItemCommand']);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers?.['Idempotent-Replayed']).toBeUndefined();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the idempotency table cannot be reached', async () => {
    const { handler } = createPetOn({ endpoint: 'http://127.0.0.1:9' });

    const response = await invoke(handler, post(randomUUID(), { name: 'Unreachable', categoryId: 1 }));

    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(response.headers?.['Retry-After']).toBe('1');
  });

  it('scopes a key to the API key that sent it', async () => {
    const { handler } = createPetOn();
    const key = randomUUID();

    const mine = await invoke(handler, post(key, { name: 'Scoped', categoryId: 1 }, 'key-a'));
    const theirs = await invoke(handler, post(key, { name: 'Scoped', categoryId: 1 }, 'key-b'));

    expect([mine.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(JSON.parse(theirs.body).id).not.toBe(JSON.parse(mine.body).id);
  });
});
