import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_PETS, listingOf, PETS_BY_STATUS } from '#functions/list-pets';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import {
  IdSpaceExhaustedError,
  InvalidStoredItemError,
  PetIdTakenError,
  StoreUnavailableError,
} from '#shared/domain/errors';
import { type ListPosition, MAX_ID, type Pet } from '#shared/domain/pet';
import { PetService } from '#shared/domain/pet-service';
import { createTestTables, type TestTables } from '../support/tables';

/** A document client that records how many items each call read, as DynamoDB reports it. */
const countingClient = (endpoint: string) => {
  const reads: { command: string; scanned: number | undefined }[] = [];
  const base = createLocalClient(endpoint);
  base.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const output = result.output as { ScannedCount?: number };
      reads.push({ command: context.commandName ?? '', scanned: output.ScannedCount });
      return result;
    },
    { step: 'initialize', name: 'countReads' },
  );
  return { client: DynamoDBDocumentClient.from(base), reads };
};

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables('repo');
});

const pet = (id: number, status: Pet['status'] = 'available'): Pet => ({
  id,
  name: `Pet ${id}`,
  categoryId: 1,
  status,
});

/** The documented order of a listing by status: shard by shard (id mod 16), ascending id within each. */
const shardOrder = (ids: readonly number[]): number[] =>
  [...ids].sort((a, b) => (a % STATUS_SHARDS) - (b % STATUS_SHARDS) || a - b);

describe('PetsTable', () => {
  it('stores a pet and reads it back', async () => {
    const { client } = countingClient(tables.endpoint);
    const repository = new PetsTable({ client, petsTable: tables.names.pets });

    await repository.create(pet(1_001));

    expect(await repository.get(1_001)).toEqual({ pet: pet(1_001), version: 1 });
    expect(await repository.get(1_002)).toBeUndefined();
  });

  it('refuses to overwrite an existing pet', async () => {
    const { client } = countingClient(tables.endpoint);
    const repository = new PetsTable({ client, petsTable: tables.names.pets });
    await repository.create(pet(2_001));

    await expect(repository.create({ ...pet(2_001), name: 'Impostor' })).rejects.toThrow(
      new PetIdTakenError(2_001),
    );
    expect(await repository.get(2_001)).toEqual({ pet: pet(2_001), version: 1 });
  });

  it('takes a write that meets this very pet already stored for a success: an earlier attempt of it, applied', async () => {
    const { client } = countingClient(tables.endpoint);
    const repository = new PetsTable({ client, petsTable: tables.names.pets });
    await repository.create(pet(2_003));

    await repository.create(pet(2_003));

    expect(await repository.get(2_003)).toEqual({ pet: pet(2_003), version: 1 });
  });

  it("reports a taken id to the operator by name and message, with DynamoDB's refusal as the cause", async () => {
    const repository = new PetsTable({
      client: countingClient(tables.endpoint).client,
      petsTable: tables.names.pets,
    });
    await repository.create(pet(2_002));

    const error = await repository.create({ ...pet(2_002), categoryId: 2 }).then(
      () => undefined,
      (failure: unknown) => failure,
    );

    expect(error).toBeInstanceOf(PetIdTakenError);
    expect(error).toMatchObject({
      name: 'PetIdTakenError',
      message: 'A pet with id 2002 already exists: the id sequence is behind the table',
      petId: 2_002,
      cause: { name: 'ConditionalCheckFailedException' },
    });
  });

  it('reads at most `limit + 1` items, filtered or not, whatever the size of the table', async () => {
    const own = await createTestTables('reads');
    const { client, reads } = countingClient(own.endpoint);
    const repository = new PetsTable({ client, petsTable: own.names.pets });
    for (let id = 1; id <= 60; id += 1) await repository.create(pet(id, id % 2 === 0 ? 'sold' : 'pending'));
    reads.length = 0;

    const unfiltered = await repository.page(ALL_PETS, { limit: 5 });
    const filtered = await repository.page(PETS_BY_STATUS, { limit: 5, filter: 'sold' });

    expect(unfiltered.pets).toHaveLength(5);
    // Shard 0 holds 16, 32 and 48; shard 2 holds 2, 18, 34 and 50 (shard 1 has no sold pet).
    expect(filtered.pets.map((p) => p.id)).toEqual([16, 32, 48, 2, 18]);
    expect(filtered.next).toEqual([{ fromId: 34 }]);
    expect(reads).toEqual([
      { command: 'ScanCommand', scanned: 6 },
      { command: 'QueryCommand', scanned: 3 },
      { command: 'QueryCommand', scanned: 0 },
      { command: 'QueryCommand', scanned: 3 },
    ]);
  });

  describe('paging', () => {
    let walk: TestTables;
    const counting = () => {
      const { client, reads } = countingClient(walk.endpoint);
      return { repository: new PetsTable({ client, petsTable: walk.names.pets }), reads };
    };
    /** Every page of a listing, following `next` until a page has none. */
    const pagesOf = async (
      repository: PetsTable,
      limit: number,
      status?: Pet['status'],
    ): Promise<Pet[][]> => {
      const pages: Pet[][] = [];
      let after: readonly ListPosition[] | undefined;
      do {
        const page = await repository.page(listingOf(status), {
          limit,
          filter: status,
          ...(after ? { after } : {}),
        });
        pages.push(page.pets);
        after = page.next;
      } while (after);
      return pages;
    };
    /** Items each page of a walk read, as DynamoDB reports them: one count per page. */
    const readsPerPage = async (limit: number, status: Pet['status']): Promise<number[]> => {
      const { repository, reads } = counting();
      const perPage: number[] = [];
      let after: readonly ListPosition[] | undefined;
      do {
        reads.length = 0;
        const page = await repository.page(PETS_BY_STATUS, {
          limit,
          filter: status,
          ...(after ? { after } : {}),
        });
        perPage.push(reads.reduce((sum, read) => sum + (read.scanned ?? 0), 0));
        after = page.next;
      } while (after);
      return perPage;
    };

    beforeAll(async () => {
      walk = await createTestTables('paging');
      const { repository } = counting();
      // 45 pets: 15 of each status, in turn (pending 1, 4, 7…).
      const statuses = ['pending', 'sold', 'available'] as const;
      await Promise.all(
        Array.from({ length: 45 }, (_, index) => repository.create(pet(index + 1, statuses[index % 3]))),
      );
    });

    it('walks the whole table once, page by page, each page reading at most limit + 1 items', async () => {
      const { repository, reads } = counting();

      const pages = await pagesOf(repository, 7);

      expect(pages.map((page) => page.length)).toEqual([7, 7, 7, 7, 7, 7, 3]);
      expect(
        pages
          .flat()
          .map((p) => p.id)
          .sort((a, b) => a - b),
      ).toEqual(Array.from({ length: 45 }, (_, index) => index + 1));
      expect(reads.every((read) => read.command === 'ScanCommand' && (read.scanned ?? 0) <= 8)).toBe(true);
      expect(reads).toHaveLength(7);
    });

    it('walks one status shard by shard, ascending id within a shard, each page reading at most limit + 1 items', async () => {
      const { repository } = counting();
      const pending = Array.from({ length: 15 }, (_, index) => 3 * index + 1);

      const pages = await pagesOf(repository, 4, 'pending');

      expect(pages.map((page) => page.map((p) => p.id))).toEqual([
        [16, 1, 34, 19],
        [4, 37, 22, 7],
        [40, 25, 10, 43],
        [28, 13, 31],
      ]);
      expect(pages.flat().map((p) => p.id)).toEqual(shardOrder(pending));
      expect(await readsPerPage(4, 'pending')).toEqual([5, 5, 5, 3]);
    });

    it('ends without a next position when the last page is exactly full: never a link to an empty page', async () => {
      const { repository } = counting();

      const pages = await pagesOf(repository, 5, 'sold');
      const unfiltered = await pagesOf(repository, 15);

      expect(pages.map((page) => page.length)).toEqual([5, 5, 5]);
      expect(unfiltered.map((page) => page.length)).toEqual([15, 15, 15]);
    });

    it('lets the page size change from one page to the next', async () => {
      const { repository } = counting();

      const first = await repository.page(PETS_BY_STATUS, { limit: 2, filter: 'available' });
      const second = await repository.page(PETS_BY_STATUS, {
        limit: 5,
        filter: 'available',
        ...(first.next ? { after: first.next } : {}),
      });

      expect(first.pets.map((p) => p.id)).toEqual([33, 18]);
      expect(second.pets.map((p) => p.id)).toEqual([3, 36, 21, 6, 39]);
    });
  });

  it('translates an unreachable DynamoDB into StoreUnavailableError', async () => {
    const client = DynamoDBDocumentClient.from(createLocalClient('http://127.0.0.1:9', { maxAttempts: 1 }));
    const repository = new PetsTable({ client, petsTable: 'unreachable' });

    await expect(repository.page(ALL_PETS, { limit: 1 })).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('DynamoDbIdSequence', () => {
  it('hands out 1, 2, 3… on a fresh table', async () => {
    const own = await createTestTables('seq');
    const { client } = countingClient(own.endpoint);
    const ids = new DynamoDbIdSequence({
      client,
      countersTable: own.names.counters,
      sequence: PET_ID_SEQUENCE,
    });

    expect([await ids.next(), await ids.next(), await ids.next()]).toEqual([1, 2, 3]);
  });

  it('gives distinct ids to 200 concurrent callers', async () => {
    const { client } = countingClient(tables.endpoint);
    const ids = new DynamoDbIdSequence({
      client,
      countersTable: tables.names.counters,
      sequence: 'concurrent',
    });

    const handedOut = await Promise.all(Array.from({ length: 200 }, () => ids.next()));

    expect(new Set(handedOut).size).toBe(200);
  });

  it('stops at 2^53−1 instead of handing out an id JavaScript clients would round', async () => {
    const { client } = countingClient(tables.endpoint);
    const raw = createLocalClient(tables.endpoint);
    await raw.send(
      new PutItemCommand({
        TableName: tables.names.counters,
        Item: { name: { S: 'nearly-full' }, value: { N: String(MAX_ID - 1) } },
      }),
    );
    const ids = new DynamoDbIdSequence({
      client,
      countersTable: tables.names.counters,
      sequence: 'nearly-full',
    });

    expect(await ids.next()).toBe(MAX_ID);
    await expect(ids.next()).rejects.toBeInstanceOf(IdSpaceExhaustedError);
    await expect(ids.next()).rejects.toBeInstanceOf(IdSpaceExhaustedError);
    raw.destroy();
  });

  it('never reuses an id, even one whose pet was never stored', async () => {
    const own = await createTestTables('gap');
    const { client } = countingClient(own.endpoint);
    const ids = new DynamoDbIdSequence({
      client,
      countersTable: own.names.counters,
      sequence: PET_ID_SEQUENCE,
    });
    const service = new PetService({
      pets: new PetsTable({ client, petsTable: own.names.pets }),
      ids,
    });
    await ids.next(); // handed out, then lost (a crash between the two writes)

    const { pet } = await service.create({ name: 'After the gap', categoryId: 1 });

    expect(pet.id).toBe(2);
    expect(await ids.next()).toBe(3);
  });
});

describe('items read from the pets table', () => {
  /** An item no version of this service would write: a name that is a number, an unknown status. */
  const putMalformed = async (own: TestTables, id: number) => {
    const raw = createLocalClient(own.endpoint);
    await raw.send(
      new PutItemCommand({
        TableName: own.names.pets,
        Item: { id: { N: String(id) }, name: { N: '5' }, status: { S: 'zombie' } },
      }),
    );
    raw.destroy();
  };

  it('are checked as pets: a malformed one is never returned, but refused naming its id and each problem', async () => {
    const own = await createTestTables('malformed');
    await putMalformed(own, 3_001);
    const repository = new PetsTable({
      client: countingClient(own.endpoint).client,
      petsTable: own.names.pets,
    });

    const failure = await repository.get(3_001).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(InvalidStoredItemError);
    expect(failure).toMatchObject({
      message:
        'The stored pet 3001 is not valid: name: must be a string; categoryId: must be an integer; status: must be one of: available, pending, sold',
    });
  });

  it('are checked in a listing too, filtered or not, and the whole page is refused rather than served without it', async () => {
    const own = await createTestTables('malformed-list');
    const repository = new PetsTable({
      client: countingClient(own.endpoint).client,
      petsTable: own.names.pets,
    });
    await repository.create(pet(1, 'sold'));
    await putMalformed(own, 2);
    const raw = createLocalClient(own.endpoint);
    await raw.send(
      new PutItemCommand({
        TableName: own.names.pets,
        // Keyed for the status index as every pet is (id 3 falls in shard 3), so the listing by status reads it.
        Item: {
          id: { N: '3' },
          name: { S: '' },
          categoryId: { N: '1' },
          status: { S: 'sold' },
          statusShard: { S: 'sold#3' },
        },
      }),
    );
    raw.destroy();

    await expect(repository.page(ALL_PETS, { limit: 10 })).rejects.toBeInstanceOf(InvalidStoredItemError);
    await expect(repository.page(PETS_BY_STATUS, { limit: 10, filter: 'sold' })).rejects.toThrow(
      'The stored pet 3 is not valid: name: must not be empty',
    );
  });

  it("are checked for a pet's shape, not for the name's text rules, which the write enforced", async () => {
    const own = await createTestTables('shape-only');
    const raw = createLocalClient(own.endpoint);
    for (const [id, name] of [
      [5, 'Re\u0007x'],
      [6, '\u200B'],
      [7, 'x'.repeat(201)],
    ] as const) {
      await raw.send(
        new PutItemCommand({
          TableName: own.names.pets,
          Item: {
            id: { N: String(id) },
            name: { S: name },
            categoryId: { N: '1' },
            status: { S: 'sold' },
            version: { N: '1' },
          },
        }),
      );
    }
    raw.destroy();
    const repository = new PetsTable({
      client: countingClient(own.endpoint).client,
      petsTable: own.names.pets,
    });

    expect(await repository.get(5)).toMatchObject({ pet: { name: 'Re\u0007x' } });
    expect(await repository.get(6)).toMatchObject({ pet: { name: '\u200B' } });
    await expect(repository.get(7)).rejects.toThrow(
      'The stored pet 7 is not valid: name: must be at most 200 characters',
    );
  });

  it('keep only the fields of a Pet: anything else an item holds stays out of the answer', async () => {
    const own = await createTestTables('extra-fields');
    const raw = createLocalClient(own.endpoint);
    await raw.send(
      new PutItemCommand({
        TableName: own.names.pets,
        Item: {
          id: { N: '4' },
          name: { S: 'Rex' },
          categoryId: { N: '1' },
          status: { S: 'sold' },
          version: { N: '1' },
          internalNote: { S: 'not for clients' },
        },
      }),
    );
    raw.destroy();
    const repository = new PetsTable({
      client: countingClient(own.endpoint).client,
      petsTable: own.names.pets,
    });

    expect(await repository.get(4)).toEqual({
      pet: { id: 4, name: 'Rex', categoryId: 1, status: 'sold' },
      version: 1,
    });
  });
});
