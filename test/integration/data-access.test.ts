import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATA_ACCESS, type TableAccess } from '#shared/adapters/dynamodb/access';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import type { TableKey } from '#shared/config';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * The accesses each adapter method declares (shared/adapters/dynamodb/access.ts) are what the
 * stack grants. Here each method runs against DynamoDB Local with a client that records every
 * command it really sends, and the two must match: a call the declaration lacks would be denied
 * in AWS, a declared action no call makes would be a grant too wide.
 */

type Call = `${string} on ${string}`;

const recordingClient = (tables: TestTables) => {
  const calls = new Set<Call>();
  const inputs: Record<string, unknown>[] = [];
  const keyOf = new Map(Object.entries(tables.names).map(([key, name]) => [name, key as TableKey]));
  const base = createLocalClient(tables.endpoint);
  base.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string; IndexName?: string };
      inputs.push({ ...input });
      const action = `dynamodb:${(context.commandName ?? '').replace(/Command$/, '')}`;
      const table = keyOf.get(input.TableName ?? '') ?? `unknown table ${input.TableName}`;
      calls.add(`${action} on ${table}${input.IndexName ? `/index/${input.IndexName}` : ''}`);
      return next(args);
    },
    { step: 'initialize', name: 'recordCalls' },
  );
  return { client: DynamoDBDocumentClient.from(base), calls, inputs };
};

const declared = (accesses: readonly TableAccess[]): Set<Call> =>
  new Set(
    accesses.flatMap((access) =>
      access.actions.map(
        (action): Call => `${action} on ${access.table}${access.index ? `/index/${access.index}` : ''}`,
      ),
    ),
  );

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables('access');
});

describe('the DynamoDB calls of each adapter method', () => {
  it('are exactly the declared ones for pets.get: GetItem on the pets table', async () => {
    const { client, calls } = recordingClient(tables);
    const pets = new DynamoDbPetRepository({ client, petsTable: tables.names.pets });

    await pets.get(1);

    expect(calls).toEqual(declared(DATA_ACCESS.pets.get));
  });

  it('read a pet strongly consistently, so a pet just created can be read back at once', async () => {
    const { client, inputs } = recordingClient(tables);
    const pets = new DynamoDbPetRepository({ client, petsTable: tables.names.pets });

    await pets.get(1);

    expect(inputs).toEqual([expect.objectContaining({ ConsistentRead: true })]);
  });

  it('are exactly the declared ones for pets.list: unfiltered and filtered', async () => {
    const { client, calls } = recordingClient(tables);
    const pets = new DynamoDbPetRepository({ client, petsTable: tables.names.pets });

    await pets.list({ limit: 5 });
    await pets.list({ limit: 5, status: 'sold' });

    expect(new Set(calls)).toEqual(declared(DATA_ACCESS.pets.list));
  });

  it('are exactly the declared ones for pets.create, its own earlier write met included: PutItem on the pets table', async () => {
    const { client, calls } = recordingClient(tables);
    const pets = new DynamoDbPetRepository({ client, petsTable: tables.names.pets });

    await pets.create({ id: 7, name: 'Rex', categoryId: 1, status: 'available' });
    await pets.create({ id: 7, name: 'Rex', categoryId: 1, status: 'available' });

    expect(calls).toEqual(declared(DATA_ACCESS.pets.create));
  });

  it('are exactly the declared ones for the idempotency records: PutItem and UpdateItem, no GetItem, no DeleteItem', async () => {
    const { client, calls } = recordingClient(tables);
    const records = new DynamoDbIdempotencyStore({
      client,
      idempotencyTable: tables.names.idempotency,
      keyPrefix: 'createPet',
      retentionSeconds: 86_400,
    });
    const key = { caller: 'key-1', key: 'calls' };
    const gone = { token: 'gone', until: 0 };
    const mine = { token: 'mine', until: Date.now() + 60_000 };

    await records.start(key, { state: 'in-progress', fingerprint: 'f', petId: 8, lock: gone });
    await records.start(key, { state: 'in-progress', fingerprint: 'f', petId: 9, lock: mine });
    await records.takeOver(key, gone, mine);
    await records.release(key, mine);
    await records.complete(key, { id: 8, name: 'Rex', categoryId: 1, status: 'available' });

    expect(calls).toEqual(declared(DATA_ACCESS.idempotency.record));
  });

  it('are exactly the declared ones for ids.next: UpdateItem on the counters table', async () => {
    const { client, calls } = recordingClient(tables);
    const ids = new DynamoDbIdSequence({
      client,
      countersTable: tables.names.counters,
      sequence: PET_ID_SEQUENCE,
    });

    await ids.next();

    expect(calls).toEqual(declared(DATA_ACCESS.ids.next));
  });

  it('are exactly the declared ones for apiKeys.findByHash: GetItem on the API keys table', async () => {
    const { client, calls } = recordingClient(tables);
    const keys = new DynamoDbApiKeyRepository({ client, apiKeysTable: tables.names.apiKeys });

    await keys.findByHash('0'.repeat(64));

    expect(calls).toEqual(declared(DATA_ACCESS.apiKeys.findByHash));
  });
});
