import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { generateApiKey } from '#shared/auth/api-key';
import type { Pet } from '#shared/domain/pet';
import type { ApiClient, ObservedExchange } from '#tools/contract/api-client';
import { startLocalGateway } from '#tools/local/gateway';
import { localFunctions } from '#tools/local/local-stack';
import { type AnswerFault, FaultProxy } from '../support/fault-proxy';
import { checkedClient } from '../support/local-api';
import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';

/**
 * Creates as an unlucky client makes them: DynamoDB applies each write, but its answer comes
 * late (after the SDK's 1 s attempt timeout, so the SDK sends the write again) or is lost (the
 * connection is reset once DynamoDB has answered). A proxy between the functions and DynamoDB
 * Local does it to chosen writes only, for real; the local gateway, the real authorizer and the
 * real createPet run as `npm start` runs them. What must hold, whichever write it hits:
 *
 * - with an Idempotency-Key, retried as the guide says (same key, after `Retry-After`), a create
 *   makes exactly one pet, every answer is 201, 409 or 503 with Retry-After, never a 500, and
 *   the last answer is the stored pet;
 * - without one, a create is never answered 500 for a pet it stored.
 *
 * Each case has its own tables, proxy and gateway, so the cases run side by side.
 */

/** Later than the SDK's 1 s attempt timeout: every such answer makes the SDK send the write again. */
const LATE = { delayMs: 1_500 } as const;

interface FaultyApi {
  readonly client: ApiClient;
  readonly proxy: FaultProxy;
  readonly tables: TestTables;
  close(): Promise<void>;
}

/** The API with its functions' DynamoDB behind a fault proxy; the authorizer's goes straight. */
const faultyApi = async (label: string): Promise<FaultyApi> => {
  const tables = await createTestTables(label);
  const { key, record } = generateApiKey(`${label} tests`);
  await apiKeysOf(tables).put(record);
  const proxy = await FaultProxy.start(tables.endpoint);
  const direct = localFunctions({ endpoint: tables.endpoint, tables: tables.names, logLevel: 'SILENT' });
  const proxied = localFunctions({ endpoint: proxy.endpoint, tables: tables.names, logLevel: 'SILENT' });
  const gateway = await startLocalGateway({
    port: 0,
    handlers: proxied.handlers,
    authorizer: direct.authorizer,
  });
  return {
    client: checkedClient(gateway.baseUrl, key),
    proxy,
    tables,
    close: async () => {
      await gateway.close();
      await proxy.close();
    },
  };
};

/** The pets stored under `name`, read behind the service's back: the Pet's fields of each item. */
const storedPets = async (tables: TestTables, name: string): Promise<Pet[]> => {
  const client = createDocumentClient({ endpoint: tables.endpoint });
  const pets: Pet[] = [];
  for await (const page of paginateScan({ client }, { TableName: tables.names.pets })) {
    pets.push(
      ...((page.Items ?? []) as Pet[])
        .filter((pet) => pet.name === name)
        .map(({ id, name: stored, categoryId, status }) => ({ id, name: stored, categoryId, status })),
    );
  }
  client.destroy();
  return pets;
};

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

/** What a client may be answered while DynamoDB misbehaves: never a 500, and a retry signal when it must retry. */
const expectRetryableOrCreated = (response: ObservedExchange) => {
  expect([201, 409, 503]).toContain(response.status);
  if (response.status !== 201) expect(response.headers.get('retry-after')).toBe('1');
};

/**
 * A client retrying one create with one key as the guide says, while `fault` hits `attempts`
 * of its requests: it sends the create, and after a 409 or 503 waits `Retry-After` and sends it
 * again, until it gets a 201. The fault is lifted after that many attempts.
 */
const retryUntilCreated = async (api: FaultyApi, fault: AnswerFault, attempts: number) => {
  const key = randomUUID();
  const body = { name: `Once ${key}`, categoryId: 3 };
  const answers: ObservedExchange[] = [];
  let faulted = 0;
  const lift = () => {
    faulted += api.proxy.seen.filter((request) => request.faulted).length;
    api.proxy.clearAnswerFaults();
  };
  api.proxy.failAnswers(fault);
  for (let attempt = 1; attempt <= 20; attempt++) {
    if (attempt === attempts + 1) lift();
    const response = await api.client.post('/pets', body, withKey(key));
    answers.push(response);
    if (response.status === 201) break;
    await sleep(Number(response.headers.get('retry-after')) * 1_000);
  }
  lift();
  const replay = await api.client.post('/pets', body, withKey(key));
  return { answers, replay, faulted, stored: await storedPets(api.tables, body.name) };
};

type Table = keyof TableNames;

/** The writes of a create with a key, in the order it makes them. */
const WRITES: readonly { what: string; operation: string; table: Table }[] = [
  { what: 'the id allocation', operation: 'UpdateItem', table: 'counters' },
  { what: 'the idempotency record', operation: 'PutItem', table: 'idempotency' },
  { what: 'the pet', operation: 'PutItem', table: 'pets' },
  { what: "the record's completion", operation: 'UpdateItem', table: 'idempotency' },
];

describe.concurrent('a create with an Idempotency-Key, retried while a write of it answers late or not at all', () => {
  // Once, the SDK's own retry meets the applied write: the first answer is the 201. For two
  // attempts, each ends at its deadline with a 503, and the client's retries finish the create,
  // except when only the record's completion is late: the pet is stored, and the 201 says so.
  const cases = WRITES.flatMap(({ what, operation, table }) => [
    {
      title: `${what} answers late once`,
      operation,
      table,
      fate: LATE,
      times: 1,
      attempts: 1,
      retried: false,
    },
    {
      title: `${what} loses its answer once`,
      operation,
      table,
      fate: 'drop' as const,
      times: 1,
      attempts: 1,
      retried: false,
    },
    {
      title: `${what} answers late for two attempts`,
      operation,
      table,
      fate: LATE,
      attempts: 2,
      retried: what !== "the record's completion",
    },
  ]);

  it.for(cases)('makes exactly one pet, never answers 500, and ends with it, when $title', async (fault) => {
    const api = await faultyApi('once');
    try {
      const { answers, replay, faulted, stored } = await retryUntilCreated(
        api,
        {
          operation: fault.operation,
          table: api.tables.names[fault.table],
          fate: fault.fate,
          ...(fault.times ? { times: fault.times } : {}),
        },
        fault.attempts,
      );

      expect(faulted).toBeGreaterThan(0);
      for (const answer of answers) expectRetryableOrCreated(answer);
      expect(answers.length > 1).toBe(fault.retried);
      const last = answers.at(-1);
      expect(last?.status).toBe(201);
      expect(stored).toHaveLength(1);
      expect(last?.json).toEqual(stored[0]);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.json).toEqual(stored[0]);
    } finally {
      await api.close();
    }
  });
});

describe.concurrent('a create without an Idempotency-Key whose pet write answers late or not at all', () => {
  it.for([
    { title: 'late once', fate: LATE, times: 1 },
    { title: 'lost once', fate: 'drop' as const, times: 1 },
  ])('is answered 201 with the one pet it stored, not 500, when the answer is $title', async (fault) => {
    const api = await faultyApi('no-key');
    try {
      const name = `No key ${randomUUID()}`;
      api.proxy.failAnswers({ operation: 'PutItem', table: api.tables.names.pets, ...fault });

      const response = await api.client.post('/pets', { name, categoryId: 3 });

      expect(api.proxy.seen.filter((request) => request.faulted)).toHaveLength(1);
      expect(response.status).toBe(201);
      expect(await storedPets(api.tables, name)).toEqual([response.json]);
    } finally {
      await api.close();
    }
  });

  it('is answered 503 with Retry-After, not 500, when every answer is late: the pet may be stored, as the docs say', async () => {
    const api = await faultyApi('no-key-late');
    try {
      const name = `No key ${randomUUID()}`;
      api.proxy.failAnswers({ operation: 'PutItem', table: api.tables.names.pets, fate: LATE });

      const response = await api.client.post('/pets', { name, categoryId: 3 });

      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await storedPets(api.tables, name)).toHaveLength(1);
    } finally {
      await api.close();
    }
  });
});
