import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient, createLocalClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { ID_BLOCKS } from '#shared/adapters/dynamodb/id-blocks';
import { FaultProxy } from '../support/fault-proxy';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * A document client that counts the UpdateItem calls it sends: the service's client through the
 * fault proxy; elsewhere one without its 1 s request timeout, so that a slow machine never makes
 * the SDK retry a lease DynamoDB applied (a gap by design, tested through the proxy below), and
 * the ids counted are the same on any machine.
 */
const countingClient = (endpoint: string, patient: boolean) => {
  const base = patient ? createLocalClient(endpoint) : createDynamoDbClient({ endpoint });
  const updates: string[] = [];
  base.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'UpdateItemCommand') updates.push(context.commandName);
      return next(args);
    },
    { step: 'initialize', name: 'countUpdates' },
  );
  return { client: documentClientOf(base), updates };
};

/** A clock the test moves by hand. */
const manualClock = () => {
  let now = 0;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
};

let tables: TestTables;
let admin: DynamoDBDocumentClient;
beforeAll(async () => {
  tables = await createTestTables('id-blocks');
  admin = DynamoDBDocumentClient.from(createLocalClient(tables.endpoint));
});
afterAll(() => admin.destroy());

let sequences = 0;
/** A sequence of its own on the shared counters table, and the clients to watch it. */
const freshSequence = (proxyEndpoint?: string, clock = manualClock()) => {
  sequences += 1;
  const sequence = `seq-${sequences}`;
  const counting = countingClient(proxyEndpoint ?? tables.endpoint, proxyEndpoint === undefined);
  const instance = () =>
    new DynamoDbIdSequence({
      client: counting.client,
      countersTable: tables.names.counters,
      sequence,
      now: clock.now,
    });
  const counter = async (): Promise<number | undefined> => {
    const { Item } = await admin.send(
      new GetCommand({ TableName: tables.names.counters, Key: { name: sequence }, ConsistentRead: true }),
    );
    return Item?.value as number | undefined;
  };
  return { instance, counter, updates: counting.updates, clock };
};

describe('ids leased in blocks', () => {
  it('hands out ids from memory between leases: 25 ids cost two counter writes, not 25', async () => {
    const { instance, counter, updates } = freshSequence();
    const ids = instance();

    const handedOut: number[] = [];
    for (let count = 0; count < 25; count++) handedOut.push(await ids.next());

    expect(handedOut).toEqual(Array.from({ length: 25 }, (_, index) => index + 1));
    // A block of 10, used up at once: the next one is twice as big.
    expect(updates).toHaveLength(2);
    expect(await counter()).toBe(ID_BLOCKS.min * 3);
  });

  it('serves a burst of 300 concurrent callers with distinct ids and a handful of leases', async () => {
    const { instance, updates } = freshSequence();
    const ids = instance();

    const handedOut = await Promise.all(Array.from({ length: 300 }, () => ids.next()));

    expect(new Set(handedOut).size).toBe(300);
    expect(Math.min(...handedOut)).toBe(1);
    // One block of 10 for the first caller, then one big enough for everyone still waiting.
    expect(updates.length).toBeLessThanOrEqual(3);
  });

  it('gives two instances disjoint blocks: ids unique, ascending per instance, not in creation order across them', async () => {
    const { instance } = freshSequence();
    const [a, b] = [instance(), instance()];

    const fromA = [await a.next(), await a.next()];
    const fromB = [await b.next(), await b.next()];
    const laterFromA = await a.next();

    expect(fromA).toEqual([1, 2]);
    expect(fromB).toEqual([11, 12]);
    // Created after B's pets, yet a lower id: A still has ids of its own block.
    expect(laterFromA).toBe(3);
  });

  it('never reuses the ids of a block an instance did not use up: a new instance starts after it', async () => {
    const { instance, counter } = freshSequence();
    const first = instance();
    await first.next();

    const second = instance();

    expect(await second.next()).toBe(ID_BLOCKS.min + 1);
    expect(await counter()).toBe(2 * ID_BLOCKS.min);
  });

  it('grows the block under load, up to 1,000 ids, and shrinks it back to 10 when idle', async () => {
    const { instance, counter, clock } = freshSequence();
    const ids = instance();
    const leased: number[] = [];
    let before = 0;
    const useBlock = async () => {
      const first = await ids.next();
      const last = (await counter()) ?? 0;
      leased.push(last - before);
      before = last;
      for (let id = first + 1; id <= last; id++) await ids.next();
    };

    // Blocks used up within a millisecond each: the busiest an instance gets.
    for (let lease = 0; lease < 8; lease++) {
      await useBlock();
      clock.advance(1);
    }
    // An hour without a create.
    clock.advance(3_600_000);
    await useBlock();

    expect(leased).toEqual([10, 20, 40, 80, 160, 320, 640, 1_000, 10]);
  });

  it('skips a block, never hands it out twice, when the answer to a lease is lost and the SDK retries it', async () => {
    const proxy = await FaultProxy.start(tables.endpoint);
    try {
      const { instance, counter } = freshSequence(proxy.endpoint);
      const ids = instance();
      // DynamoDB applies the first lease; its answer is lost (the connection reset), and the SDK
      // sends the same ADD again, which DynamoDB applies a second time.
      proxy.failAnswers({ operation: 'UpdateItem', table: tables.names.counters, fate: 'drop', times: 1 });

      const id = await ids.next();

      await proxy.answersFailed(1);
      // The first attempt's block (1..10) went to nobody: the retry took 11..20.
      expect(id).toBe(ID_BLOCKS.min + 1);
      expect(await counter()).toBe(2 * ID_BLOCKS.min);
      const other = instance();
      expect(await other.next()).toBe(2 * ID_BLOCKS.min + 1);
    } finally {
      await proxy.close();
    }
  });
});
