import {
  EventBridgeClient,
  EventBridgeServiceException,
  PutEventsCommand,
  type PutEventsCommandInput,
  type PutEventsCommandOutput,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { publishPetEvents } from '#functions/publish-pet-events';
import { eventBridgeBus } from '#shared/adapters/eventbridge/event-bus';
import { PET_EVENTS_SOURCE } from '#shared/events/pet-events';
import { publishRecords } from '#shared/events/publish';
import { createLogger } from '#shared/observability/logger';
import {
  type BusEntry,
  type EventBus,
  entrySize,
  PUT_EVENTS_LIMITS,
  putEventsCalls,
} from '#shared/ports/event-bus';
import { lambdaContext } from '#tools/lambda/context';
import { pet, streamRecord } from '../support/stream-records';

/**
 * The publisher against EventBridge as the SDK shapes it (aws-sdk-client-mock stubs the client's
 * `send`): PutEvents can succeed with some entries failed (`FailedEntryCount`, an `ErrorCode` at
 * each failed index, "Sending events with PutEvents in Amazon EventBridge").
 */

const BUS = 'pet-store-staging-events';
const client = new EventBridgeClient({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const eventBridge = mockClient(client);
const logger = createLogger({ logLevel: 'SILENT' });
afterEach(() => {
  eventBridge.reset();
  vi.restoreAllMocks();
});

const publish = (records: Parameters<typeof publishRecords>[0]) =>
  publishRecords(records, { bus: eventBridgeBus(client, BUS), logger, sleep: async () => {} });

const sentEntries = () =>
  eventBridge
    .commandCalls(PutEventsCommand)
    .map((call) => (call.args[0].input as PutEventsCommandInput).Entries ?? []);

const accepted = (input: PutEventsCommandInput): PutEventsCommandOutput => ({
  $metadata: {},
  FailedEntryCount: 0,
  Entries: (input.Entries ?? []).map((_, index) => ({ EventId: `id-${index}` })),
});

const created = (sequence: number, id: number) =>
  streamRecord(sequence, { after: { pet: pet(id), version: 1 } });
const changed = (sequence: number, id: number, version: number) =>
  streamRecord(sequence, {
    before: { pet: pet(id), version: version - 1 },
    after: { pet: pet(id, { status: 'sold' }), version },
  });
const detailOf = (entry: { Detail?: string } | undefined) => JSON.parse(entry?.Detail ?? '{}');

describe('publishing a batch of the stream', () => {
  it('sends again only the entries PutEvents failed, with the same content, and reports no failure once they pass', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [
          { EventId: 'a1' },
          { ErrorCode: 'InternalFailure', ErrorMessage: 'Internal Service Failure' },
          { EventId: 'c1' },
        ],
      })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'b2' }] });

    const result = await publish([created(1, 1), created(2, 2), created(3, 3)]);

    const [first, second] = sentEntries();
    expect(first?.map((entry) => detailOf(entry).eventId)).toEqual(['pet-1-v1', 'pet-2-v1', 'pet-3-v1']);
    expect(second).toEqual([first?.[1]]);
    expect(second?.[0]).toEqual({
      EventBusName: BUS,
      Source: PET_EVENTS_SOURCE,
      DetailType: 'PetCreated',
      Detail: JSON.stringify({
        eventId: 'pet-2-v1',
        petId: 2,
        version: 1,
        occurredAt: '2026-12-07T15:36:12.000Z',
        pet: pet(2),
      }),
      Time: new Date('2026-12-07T15:36:12Z'),
    });
    expect(result).toEqual({ batchItemFailures: [] });
  });

  it('reports the record still refused after every attempt, and every later record of its pet, and never sends those', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
      FailedEntryCount: 1,
      Entries: (input.Entries ?? []).map((entry) =>
        detailOf(entry).petId === 1
          ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }
          : { EventId: 'x' },
      ),
    }));
    const records = [created(1, 1), created(2, 2), changed(3, 1, 2), changed(4, 2, 2)];

    const result = await publish(records);

    const sent = sentEntries()
      .flat()
      .map((entry) => detailOf(entry).eventId);
    expect(sent.filter((id) => id === 'pet-1-v1')).toHaveLength(3);
    expect(sent).not.toContain('pet-1-v2');
    expect(sent).toContain('pet-2-v2');
    expect(result).toEqual({
      batchItemFailures: [
        { itemIdentifier: records[0]?.dynamodb?.SequenceNumber },
        { itemIdentifier: records[2]?.dynamodb?.SequenceNumber },
      ],
    });
  });

  it("sends a pet's next event only once PutEvents took the one before it: one event of a pet per call", async () => {
    eventBridge.on(PutEventsCommand).callsFake(accepted);

    await publish([created(1, 7), changed(2, 7, 2), changed(3, 7, 3), created(4, 8)]);

    expect(sentEntries().map((call) => call.map((entry) => detailOf(entry).eventId))).toEqual([
      ['pet-7-v1', 'pet-8-v1'],
      ['pet-7-v2'],
      ['pet-7-v3'],
    ]);
  });

  it('sends what a whole failed call held again, after the SDK gave up on it', async () => {
    eventBridge
      .on(PutEventsCommand)
      .rejectsOnce(
        new EventBridgeServiceException({
          name: 'ThrottlingException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
          message: 'Rate exceeded',
        }),
      )
      .callsFake(accepted);

    const result = await publish([created(1, 1), created(2, 2)]);

    const [first, second] = sentEntries();
    expect(second).toEqual(first);
    expect(result).toEqual({ batchItemFailures: [] });
  });

  it('publishes nothing for an item that is not a pet, and fails an unreadable pet and its later records', async () => {
    eventBridge.on(PutEventsCommand).callsFake(accepted);
    const unreadable = streamRecord(2, {
      after: { id: 4, name: 'x', categoryId: 0, status: 'sold', version: 1 },
    });

    const result = await publish([
      streamRecord(1, { after: { id: 'counter', next: 3 } }),
      unreadable,
      changed(3, 4, 2),
      created(4, 5),
    ]);

    expect(
      sentEntries()
        .flat()
        .map((entry) => detailOf(entry).eventId),
    ).toEqual(['pet-5-v1']);
    expect(result.batchItemFailures.map(({ itemIdentifier }) => Number(itemIdentifier))).toEqual([2, 3]);
  });

  it('fails what it has not sent when too little of the invocation is left, rather than time out', async () => {
    eventBridge.on(PutEventsCommand).callsFake(accepted);
    const records = [created(1, 1)];

    const result = await publishRecords(records, {
      bus: eventBridgeBus(client, BUS),
      logger,
      remainingMs: () => 1_000,
    });

    expect(sentEntries()).toEqual([]);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.dynamodb?.SequenceNumber }]);
  });
  it("waits only before a resend: a pet's next events go at once after a refused one was taken", async () => {
    let refused = false;
    const bus: EventBus = {
      put: async (entries) =>
        entries.map((entry) => {
          const { eventId } = JSON.parse(entry.detail) as { eventId: string };
          if (refused) return { eventId };
          refused = true;
          return { errorCode: 'ThrottlingException' };
        }),
    };
    const waits: number[] = [];
    const records = [
      created(1, 1),
      ...Array.from({ length: 29 }, (_, index) => changed(index + 2, 1, index + 2)),
    ];

    const result = await publishRecords(records, {
      bus,
      logger,
      backoffMs: 100,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });

    expect(result).toEqual({ batchItemFailures: [] });
    expect(waits).toEqual([100]);
  });

  it('never waits to resend into its timeout: a throttled batch ends in failures, with time left to answer', async () => {
    // A 15 s invocation on its own clock. EventBridge refuses every other entry it receives (a
    // throttle), answering in 10 ms, until its calls take 3 s (the SDK retrying them).
    const timeoutMs = 15_000;
    let elapsed = 0;
    let received = 0;
    let calls = 0;
    const published = new Set<string>();
    const bus: EventBus = {
      put: async (entries) => {
        calls += 1;
        elapsed += calls < 8 ? 10 : 3_000;
        return entries.map((entry) => {
          received += 1;
          const { eventId } = JSON.parse(entry.detail) as { eventId: string };
          if (received % 2 === 1) return { errorCode: 'ThrottlingException' };
          published.add(eventId);
          return { eventId };
        });
      },
    };
    // Three pets, ten writes each, interleaved as the stream has them.
    const writes = Array.from({ length: 30 }, (_, index) => ({
      sequence: index + 1,
      id: (index % 3) + 1,
      version: Math.floor(index / 3) + 1,
    }));
    const records = writes.map(({ sequence, id, version }) =>
      version === 1 ? created(sequence, id) : changed(sequence, id, version),
    );

    const result = await publishRecords(records, {
      bus,
      logger,
      remainingMs: () => timeoutMs - elapsed,
      sleep: async (ms) => {
        elapsed += ms;
      },
    });

    expect(elapsed).toBeLessThan(timeoutMs);
    // Every record published or failed; a pet's failures are its records from its first unpublished event on.
    const failed = new Set(result.batchItemFailures.map(({ itemIdentifier }) => Number(itemIdentifier)));
    const outcomes = writes.map(({ sequence, id, version }) => ({
      id,
      outcome: published.has(`pet-${id}-v${version}`)
        ? 'published'
        : failed.has(sequence)
          ? 'failed'
          : 'lost',
    }));
    expect(outcomes.filter(({ outcome }) => outcome === 'lost')).toEqual([]);
    for (const pet of [1, 2, 3]) {
      const own = outcomes.filter(({ id }) => id === pet).map(({ outcome }) => outcome);
      expect(own.slice(Math.max(0, own.indexOf('failed')))).not.toContain('published');
    }
  });
});

describe('PutEvents calls', () => {
  const entry = (bytes: number): BusEntry => ({
    source: PET_EVENTS_SOURCE,
    detailType: 'PetChanged',
    detail: 'x'.repeat(bytes),
    time: new Date(),
  });

  it('hold at most 10 entries', () => {
    const calls = putEventsCalls(
      Array.from({ length: 25 }, () => entry(10)),
      (item) => item,
    );

    expect(calls.map((call) => call.length)).toEqual([10, 10, 5]);
  });

  it('hold at most 256 KB of entries, counted as EventBridge counts them', () => {
    const big = entry(100_000);
    expect(entrySize(big)).toBe(14 + PET_EVENTS_SOURCE.length + 'PetChanged'.length + 100_000);

    const calls = putEventsCalls([big, big, big, entry(10)], (item) => item);

    expect(calls.map((call) => call.length)).toEqual([2, 2]);
    for (const call of calls)
      expect(call.reduce((sum, item) => sum + entrySize(item), 0)).toBeLessThanOrEqual(
        PUT_EVENTS_LIMITS.bytes,
      );
  });
});

describe('the publisher function', () => {
  it('answers a batch with its batch item failures, as the event source mapping reads them', async () => {
    eventBridge.on(PutEventsCommand).callsFake(accepted);
    const handler = publishPetEvents({ bus: eventBridgeBus(client, BUS), logger });

    const result = await handler({ Records: [created(1, 1)] }, lambdaContext('publishPetEvents'));

    expect(result).toEqual({ batchItemFailures: [] });
    expect(sentEntries()).toHaveLength(1);
  });
});
