import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { backfillStatusShards } from '#shared/adapters/dynamodb/status-shard-backfill';
import { PET_STATUSES, type Pet } from '#shared/domain/pet';
import { type BackfillIo, main, parseBackfillArgs } from '#tools/migrate/backfill-status-shards';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * The migration of a table written before the status index was sharded, on DynamoDB Local: a
 * table as such a stage has it while it migrates (both indexes), holding pets stored the old way
 * (no `statusShard`), backfilled by the project's command.
 */

const documents = (tables: TestTables) => DynamoDBDocumentClient.from(createLocalClient(tables.endpoint));

const pet = (id: number): Pet => ({
  id,
  name: `Pet ${id}`,
  categoryId: 1,
  status: PET_STATUSES[id % 3] as Pet['status'],
});

/** Pets 1..count as the code before the sharded index stored them: the Pet's fields only. */
const storeTheOldWay = async (tables: TestTables, count: number) => {
  const client = documents(tables);
  for (let first = 1; first <= count; first += 25) {
    const ids = Array.from({ length: Math.min(25, count - first + 1) }, (_, index) => first + index);
    await client.send(
      new BatchWriteCommand({
        RequestItems: { [tables.names.pets]: ids.map((id) => ({ PutRequest: { Item: pet(id) } })) },
      }),
    );
  }
};

const storedItems = async (tables: TestTables) =>
  (await documents(tables).send(new ScanCommand({ TableName: tables.names.pets }))).Items ?? [];

/** Every pet of a status as the sharded walk lists it, page after page. */
const listedBySharded = async (tables: TestTables, status: Pet['status']): Promise<number[]> => {
  const repository = new DynamoDbPetRepository({ client: documents(tables), petsTable: tables.names.pets });
  const ids: number[] = [];
  let page = await repository.list({ limit: 50, status });
  ids.push(...page.pets.map((each) => each.id));
  while (page.next) {
    page = await repository.list({ limit: 50, status, after: page.next });
    ids.push(...page.pets.map((each) => each.id));
  }
  return ids.sort((a, b) => a - b);
};

const run = async (argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: BackfillIo = { out: (line) => out.push(line), err: (line) => err.push(line) };
  return { code: await main(argv, io), out, err };
};

describe('backfilling statusShard on a table that already holds pets', () => {
  let tables: TestTables;
  beforeEach(async () => {
    tables = await createTestTables('backfill', { legacyStatusIndex: true });
    await storeTheOldWay(tables, 120);
  });

  it('gives every pet the key of its shard, after which the sharded walk lists every pet once', async () => {
    expect(await listedBySharded(tables, 'sold')).toEqual([]);

    const result = await run(['--endpoint', tables.endpoint, '--table', tables.names.pets]);

    expect(result.code).toBe(0);
    expect(result.out).toEqual(['Done: 120 pets read: 120 given their key, 0 had it.']);
    const items = await storedItems(tables);
    expect(items.every((item) => item.statusShard === `${item.status}#${Number(item.id) % 16}`)).toBe(true);
    for (const status of PET_STATUSES) {
      const expected = Array.from({ length: 120 }, (_, index) => index + 1).filter(
        (id) => PET_STATUSES[id % 3] === status,
      );
      expect(await listedBySharded(tables, status)).toEqual(expected);
    }
  });

  it('writes nothing when run again: every pet already has its key', async () => {
    await run(['--endpoint', tables.endpoint, '--table', tables.names.pets]);

    const again = await run(['--endpoint', tables.endpoint, '--table', tables.names.pets]);

    expect(again.out).toEqual(['Done: 120 pets read: 0 given their key, 120 had it.']);
  });

  it('resumes where a stopped run left off, from the position it reported', async () => {
    const client = documents(tables);
    let reported: number | undefined;
    const stopped = backfillStatusShards({
      client,
      petsTable: tables.names.pets,
      pageSize: 50,
      onPage: (progress) => {
        reported = progress.after;
        throw new Error('stopped after the first page');
      },
    });
    await expect(stopped).rejects.toThrow('stopped after the first page');
    const first = (await storedItems(tables)).filter((item) => item.statusShard !== undefined).length;

    const resumed = await backfillStatusShards({
      client,
      petsTable: tables.names.pets,
      pageSize: 50,
      ...(reported === undefined ? {} : { after: reported }),
    });

    expect(first).toBe(50);
    expect(reported).toBeDefined();
    // The resumed run reads only what the stopped one had not, and leaves no pet without its key.
    expect([resumed.scanned, resumed.updated]).toEqual([70, 70]);
    expect((await storedItems(tables)).every((item) => item.statusShard !== undefined)).toBe(true);
  });

  it('prints, as it goes, the --after to resume from, and accepts it', async () => {
    const progress: string[] = [];
    await backfillStatusShards({
      client: documents(tables),
      petsTable: tables.names.pets,
      pageSize: 100,
      onPage: ({ after }) => {
        if (after !== undefined) progress.push(String(after));
      },
    });
    const [after = ''] = progress;

    const resumed = await run([
      '--endpoint',
      tables.endpoint,
      '--table',
      tables.names.pets,
      '--after',
      after,
    ]);

    expect(progress).toHaveLength(1);
    expect(resumed.out).toEqual(['Done: 20 pets read: 0 given their key, 20 had it.']);
  });
});

describe('the backfill command line', () => {
  it('needs the table, and refuses a table of another stage or an --after that is not an id', () => {
    expect(() => parseBackfillArgs([])).toThrow('--table is required');
    expect(() =>
      parseBackfillArgs(['--table', 'PetStore-staging-TablesPets1', '--stage', 'production']),
    ).toThrow('Table "PetStore-staging-TablesPets1" does not belong to stack PetStore-production');
    expect(() => parseBackfillArgs(['--table', 't', '--after=-3'])).toThrow('--after must be a pet id');
    expect(
      parseBackfillArgs([
        '--table',
        'PetStore-production-TablesPets1',
        '--stage',
        'production',
        '--after',
        '42',
      ]),
    ).toEqual({
      command: 'run',
      target: { table: 'PetStore-production-TablesPets1', stage: 'production', after: 42 },
    });
  });

  it('answers a usage error with exit code 2 and the usage, before touching any table', async () => {
    const result = await run(['--tabel', 'x']);

    expect(result.code).toBe(2);
    expect(result.err.join('\n')).toContain('npm run backfill:status-shards -- --table <table>');
  });
});
