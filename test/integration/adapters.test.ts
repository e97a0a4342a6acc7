import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_PETS, PETS_BY_STATUS } from '#functions/list-pets';
import { createDocumentClient, createLocalClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { ensureTables, tableNamesFor } from '#shared/adapters/dynamodb/create-tables';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { DynamoDbIdSequence } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { recordFor } from '#shared/auth/api-key';
import { Deadline, withDeadline } from '#shared/deadline';
import { StoreUnavailableError } from '#shared/domain/errors';
import { FaultProxy } from '../support/fault-proxy';
import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';

/**
 * The DynamoDB adapters against DynamoDB Local: the tables as the stack makes them, the calls and
 * flags each method sends, and how a failing DynamoDB reaches the domain.
 */

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables('adapters');
});

/** A document client that records the input of every command it sends. */
const recordingClient = () => {
  const inputs: { command: string; input: Record<string, unknown> }[] = [];
  const base = createLocalClient(tables.endpoint);
  base.middlewareStack.add(
    (next, context) => async (args) => {
      inputs.push({
        command: context.commandName ?? '',
        input: { ...(args.input as Record<string, unknown>) },
      });
      return next(args);
    },
    { step: 'initialize', name: 'recordInputs' },
  );
  return { client: DynamoDBDocumentClient.from(base), inputs };
};

/** A DynamoDB that refuses every connection, tried once. */
const unreachable = () =>
  DynamoDBDocumentClient.from(createLocalClient('http://127.0.0.1:9', { maxAttempts: 1 }));

describe('the tables', () => {
  it('are named <prefix>-<logical name in lower case>', () => {
    expect(tableNamesFor('petstore-local')).toEqual({
      pets: 'petstore-local-pets',
      counters: 'petstore-local-counters',
      apiKeys: 'petstore-local-apikeys',
      idempotency: 'petstore-local-idempotency',
    });
  });

  it('are left as they are when they exist: making them again changes nothing', async () => {
    const client = createLocalClient(tables.endpoint);
    try {
      await ensureTables(client, tables.names);
      const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tables.names.idempotency }));

      expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toBe('ENABLED');
    } finally {
      client.destroy();
    }
  });
});

describe('making the tables', () => {
  it('fails when DynamoDB cannot be reached, rather than take the tables for made', async () => {
    const client = createLocalClient('http://127.0.0.1:9', { maxAttempts: 1 });
    try {
      await expect(ensureTables(client, tableNamesFor('unreachable'))).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    } finally {
      client.destroy();
    }
  });
});

describe("the functions' client under a request's deadline", () => {
  /** The pet repository's GetItem through `proxy`, on the functions' own client, timed. */
  const timedGet = async (proxy: FaultProxy, deadline?: Deadline) => {
    const pets = new PetsTable({
      client: createDocumentClient({ endpoint: proxy.endpoint }),
      petsTable: tables.names.pets,
    });
    const started = performance.now();
    const get = () =>
      pets.get(1).then(
        () => 'answered',
        (error: Error) => error.message,
      );
    const outcome = await (deadline ? withDeadline(deadline, get) : get());
    return { outcome, ms: performance.now() - started };
  };

  it('abandons the attempt in flight at the deadline, and starts no retry after it', async () => {
    const proxy = await FaultProxy.start(tables.endpoint);
    proxy.stall();
    try {
      const { outcome, ms } = await timedGet(proxy, Deadline.in(1_500));

      expect(outcome).toBe('DynamoDB GetItem failed: AbortError');
      // The first attempt timed out at 1 s, the second was cut at 1.5 s: no third (until 3.15 s).
      expect(proxy.seen.map((request) => request.operation)).toEqual(['GetItem', 'GetItem']);
      expect(ms).toBeGreaterThanOrEqual(1_450);
      expect(ms).toBeLessThan(2_500);
    } finally {
      await proxy.close();
    }
  });

  it('fails at once, without a call, once the deadline has passed', async () => {
    const proxy = await FaultProxy.start(tables.endpoint);
    try {
      const { outcome } = await timedGet(proxy, new Deadline(Date.now() - 1));

      expect(outcome).toBe('DynamoDB GetItem failed: AbortError');
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('keeps 1 s attempts, three of them, for a call made outside any request', async () => {
    const proxy = await FaultProxy.start(tables.endpoint);
    proxy.stall();
    try {
      const { outcome, ms } = await timedGet(proxy);

      expect(outcome).toBe('DynamoDB GetItem failed: TimeoutError');
      expect(proxy.seen.map((request) => request.operation)).toEqual(['GetItem', 'GetItem', 'GetItem']);
      expect(ms).toBeGreaterThanOrEqual(2_950);
    } finally {
      await proxy.close();
    }
  });
});

describe('the document client', () => {
  it('drops undefined attributes rather than failing the write', async () => {
    const client = createDocumentClient({ endpoint: tables.endpoint });
    try {
      await client.send(
        new PutCommand({
          TableName: tables.names.counters,
          Item: { name: 'undefined-test', value: 1, gone: undefined },
        }),
      );
      const { Item } = await client.send(
        new GetCommand({ TableName: tables.names.counters, Key: { name: 'undefined-test' } }),
      );

      expect(Item).toEqual({ name: 'undefined-test', value: 1 });
    } finally {
      client.destroy();
    }
  });

  it('wraps the very client it is given', () => {
    const base = createLocalClient(tables.endpoint);

    expect(documentClientOf(base).config.translateConfig).toEqual({
      marshallOptions: { removeUndefinedValues: true },
    });
    base.destroy();
  });
});

describe('the API key repository', () => {
  it('reads a key strongly consistently, so that a key revoked a moment ago is never taken as valid', async () => {
    const { client, inputs } = recordingClient();
    const repository = new DynamoDbApiKeyRepository({ client, apiKeysTable: tables.names.apiKeys });

    await repository.findByHash('0'.repeat(64));

    expect(inputs).toEqual([
      { command: 'GetItemCommand', input: expect.objectContaining({ ConsistentRead: true }) },
    ]);
  });

  it('gives back a stored key exactly, with no revokedAt until it is revoked', async () => {
    const repository = new DynamoDbApiKeyRepository({
      client: createDocumentClient({ endpoint: tables.endpoint }),
      apiKeysTable: tables.names.apiKeys,
    });
    const record = recordFor('psk_adapters-exact', 'exact', new Date('2026-01-02T03:04:05.000Z'));
    await repository.put(record);

    const found = await repository.findByHash(record.keyHash);

    expect(found).toStrictEqual({
      keyHash: record.keyHash,
      keyId: record.keyId,
      name: 'exact',
      createdAt: '2026-01-02T03:04:05.000Z',
    });
  });

  it('lists keys oldest first, whatever order they are stored in', async () => {
    const names = await createTestTables('adapters-keys');
    const repository = new DynamoDbApiKeyRepository({
      client: createDocumentClient({ endpoint: names.endpoint }),
      apiKeysTable: names.names.apiKeys,
    });
    for (const [key, day] of [
      ['psk_c', '03'],
      ['psk_a', '01'],
      ['psk_b', '02'],
    ] as const) {
      await repository.put(recordFor(key, key, new Date(`2026-01-${day}T00:00:00Z`)));
    }

    const listed = await repository.list();

    expect(listed.map((record) => record.name)).toEqual(['psk_a', 'psk_b', 'psk_c']);
  });

  it('reads every page of a scan of the keys', async () => {
    // A scan page ends at 1 MB; a key table never holds that much, so DynamoDB's paging is
    // stood in for here: three pages, the last one empty.
    const pages = [
      {
        Items: [recordFor('psk_one', 'one', new Date('2026-01-01T00:00:00Z'))],
        LastEvaluatedKey: { keyHash: 'x' },
      },
      {
        Items: [recordFor('psk_two', 'two', new Date('2026-01-02T00:00:00Z'))],
        LastEvaluatedKey: { keyHash: 'y' },
      },
      {},
    ];
    const starts: unknown[] = [];
    const client = {
      send: async (command: { input: { ExclusiveStartKey?: unknown } }) => {
        starts.push(command.input.ExclusiveStartKey);
        return pages[starts.length - 1];
      },
    } as unknown as DynamoDBDocumentClient;
    const repository = new DynamoDbApiKeyRepository({ client, apiKeysTable: 'keys' });

    const listed = await repository.list();

    expect(listed.map((record) => record.name)).toEqual(['one', 'two']);
    expect(starts).toEqual([undefined, { keyHash: 'x' }, { keyHash: 'y' }]);
  });

  it('translates an unreachable DynamoDB into StoreUnavailableError naming the call', async () => {
    const repository = new DynamoDbApiKeyRepository({ client: unreachable(), apiKeysTable: 'keys' });

    await expect(repository.findByHash('0'.repeat(64))).rejects.toThrow(
      new StoreUnavailableError('DynamoDB GetItem failed: Error'),
    );
  });

  it('names each call that failed when DynamoDB cannot be reached: storing, listing, revoking', async () => {
    const repository = new DynamoDbApiKeyRepository({ client: unreachable(), apiKeysTable: 'keys' });
    // Listing works, then the connection drops as the revocation is written.
    const base = createLocalClient(tables.endpoint, { maxAttempts: 1 });
    base.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand') {
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'dropUpdates' },
    );
    const revoking = new DynamoDbApiKeyRepository({
      client: DynamoDBDocumentClient.from(base),
      apiKeysTable: tables.names.apiKeys,
    });
    const stored = recordFor('psk_revoked-while-dropping', 'dropping');
    await apiKeysOf(tables).put(stored);

    await expect(repository.put(stored)).rejects.toThrow(
      new StoreUnavailableError('DynamoDB PutItem failed: Error'),
    );
    await expect(repository.list()).rejects.toThrow(new StoreUnavailableError('DynamoDB Scan failed: Error'));
    await expect(revoking.revoke(stored.keyId, '2026-01-01T00:00:00.000Z')).rejects.toThrow(
      new StoreUnavailableError('DynamoDB UpdateItem failed: Error'),
    );
  });
});

describe('the pet repository', () => {
  it('names the call that failed when DynamoDB cannot be reached', async () => {
    const repository = new PetsTable({ client: unreachable(), petsTable: 'pets' });
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => 'no failure',
        (error: Error) => [error.name, error.message],
      );

    expect(await failure(repository.get(1))).toEqual([
      'StoreUnavailableError',
      'DynamoDB GetItem failed: Error',
    ]);
    expect(await failure(repository.create({ id: 1, name: 'x', categoryId: 1, status: 'sold' }))).toEqual([
      'StoreUnavailableError',
      'DynamoDB PutItem failed: Error',
    ]);
    expect(await failure(repository.page(ALL_PETS, { limit: 1 }))).toEqual([
      'StoreUnavailableError',
      'DynamoDB Scan failed: Error',
    ]);
    expect(await failure(repository.page(PETS_BY_STATUS, { limit: 1, filter: 'sold' }))).toEqual([
      'StoreUnavailableError',
      'DynamoDB Query failed: Error',
    ]);
  });

  it('walks one partition: a listing with no position starts at the beginning, one with two is refused', async () => {
    const pets = await createTestTables('adapters-positions');
    const repository = new PetsTable({
      client: createDocumentClient({ endpoint: pets.endpoint }),
      petsTable: pets.names.pets,
    });
    await repository.create({ id: 1, name: 'One', categoryId: 1, status: 'sold' });

    const fromStart = await repository.page(PETS_BY_STATUS, { limit: 5, filter: 'sold', after: [] });

    expect(fromStart).toEqual({ pets: [{ id: 1, name: 'One', categoryId: 1, status: 'sold' }] });
    await expect(
      repository.page(ALL_PETS, { limit: 5, after: [{ afterId: 1 }, { afterId: 2 }] }),
    ).rejects.toThrow('A listing walks one partition, not 2');
  });

  it('links to a next page when DynamoDB stops at its 1 MB page before the limit', async () => {
    const pets = await createTestTables('adapters-1mb');
    const client = createDocumentClient({ endpoint: pets.endpoint });
    // Four items of 390 KB: a scan page (1 MB) holds at most three of them.
    for (const id of [1, 2, 3, 4]) {
      await client.send(
        new PutCommand({
          TableName: pets.names.pets,
          Item: { id, name: `Big${id}`, categoryId: 1, status: 'sold', padding: 'x'.repeat(390_000) },
        }),
      );
    }
    const repository = new PetsTable({ client, petsTable: pets.names.pets });

    const page = await repository.page(ALL_PETS, { limit: 10 });

    expect(page.pets.length).toBeLessThan(4);
    expect(page.next).toEqual([{ afterId: page.pets.at(-1)?.id }]);
  });
});

describe('the id sequence', () => {
  it('reports an unreachable DynamoDB as unavailable, not as ids running out', async () => {
    const sequence = new DynamoDbIdSequence({
      client: unreachable(),
      countersTable: 'counters',
      sequence: 'pet-id',
    });

    await expect(sequence.next()).rejects.toThrow(
      new StoreUnavailableError('DynamoDB UpdateItem failed: Error'),
    );
  });
});

describe('the idempotency store', () => {
  it('names the call that failed when DynamoDB cannot be reached', async () => {
    const store = new DynamoDbIdempotencyStore({
      client: unreachable(),
      idempotencyTable: 'idempotency',
      keyPrefix: 'createPet',
      retentionSeconds: 86_400,
    });
    const key = { caller: 'key-1', key: 'k' };
    const lock = { token: 't', until: Date.now() + 1_000 };
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => 'no failure',
        (error: Error) => error.message,
      );

    expect(await failure(store.start(key, { state: 'in-progress', fingerprint: 'f', petId: 1, lock }))).toBe(
      'DynamoDB PutItem failed: Error',
    );
    expect(await failure(store.takeOver(key, lock, { token: 'u', until: 0 }))).toBe(
      'DynamoDB UpdateItem failed: Error',
    );
    expect(
      await failure(store.complete(key, { id: 1, name: 'Rex', categoryId: 1, status: 'available' })),
    ).toBe('DynamoDB UpdateItem failed: Error');
    expect(await failure(store.release(key, lock))).toBe('DynamoDB UpdateItem failed: Error');
  });
});
