import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petEventsPublisher, publishPetEvents } from '#functions/publish-pet-events';
import { createDocumentClient, createLocalClient, LOCAL_CLIENT } from '#shared/adapters/dynamodb/client';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { HANDLER_TIMEOUT_SECONDS } from '#shared/lambda';
import { createLogger } from '#shared/observability/logger';
import type { ObservedExchange } from '#tools/contract/api-client';
import { inInvocationStore } from '#tools/lambda/invoke-store';
import { EventLog, originOf } from '#tools/local/event-log';
import { type LocalPetEvents, startLocalPetEvents } from '#tools/local/pet-events';
import { localDataPaths } from '#tools/local/settings';
import { StreamPoller } from '#tools/local/stream-poller';
import { type AcknowledgedWrite, eventLogProblems, readEventLog } from '../support/event-log';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { createTestTables } from '../support/tables';

/**
 * `npm start`'s events, in this process: the local gateway in front of the real functions, and
 * the publisher on DynamoDB Local's stream of their pets table, as `npm start` runs them. What
 * only a process can show (kill -9, a restart) is in npm-start.test.ts.
 */

/** A URL that refuses its first event with 503 (an API destination retries it) and keeps what it takes. */
const startTarget = async () => {
  const received: string[] = [];
  let refused = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      if (refused === 0) {
        refused += 1;
        response.writeHead(503).end();
        return;
      }
      received.push(body);
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

let api: LocalApi;
let dataDir: string;
let target: Awaited<ReturnType<typeof startTarget>>;
let events: LocalPetEvents | undefined;
const startEvents = async () => {
  events = await startLocalPetEvents({
    endpoint: api.tables.endpoint,
    petsTable: api.tables.names.pets,
    dataDir,
    targets: [target.url],
    logLevel: 'SILENT',
    log: () => undefined,
  });
};
beforeAll(async () => {
  api = await startLocalApi('events');
  dataDir = mkdtempSync(join(tmpdir(), 'petstore-events-'));
  target = await startTarget();
  await startEvents();
});
afterAll(async () => {
  await events?.stop();
  await Promise.all([api.close(), target.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

const eventsFile = () => localDataPaths(dataDir).events;
const acknowledged: AcknowledgedWrite[] = [];
const versionOf = (answer: ObservedExchange) => Number(answer.headers.get('etag')?.replaceAll('"', ''));

/** The writes of a client: each acknowledged one noted with the version it made. */
const create = async (name: string, headers: Record<string, string> = {}) => {
  const answer = await api.client.post('/pets', { name, categoryId: 2 }, { headers });
  const { id } = answer.json as { id: number };
  if (answer.status === 201 && answer.headers.get('idempotent-replayed') !== 'true')
    acknowledged.push({ petId: id, version: 1 });
  return { answer, id };
};
const change = async (id: number, version: number, body: unknown) => {
  const answer = await api.client.request(`/pets/${id}`, {
    method: 'PATCH',
    body,
    headers: { 'If-Match': `"${version}"` },
  });
  if (answer.status === 200) acknowledged.push({ petId: id, version: versionOf(answer) });
  return answer;
};
const remove = async (id: number, version: number) => {
  const answer = await api.client.request(`/pets/${id}`, {
    method: 'DELETE',
    headers: { 'If-Match': `"${version}"` },
  });
  if (answer.status === 204) acknowledged.push({ petId: id, version: version + 1 });
  return answer;
};

/** Waits for the events of every write so far: an event is there once the stream has been polled. */
const everyEventWritten = () =>
  expect
    .poll(() => eventLogProblems(readEventLog(eventsFile()), acknowledged), {
      timeout: 30_000,
      interval: 100,
    })
    .toEqual([]);

describe('the events of npm start', () => {
  it('are one line of events.ndjson per acknowledged write, in each pet order, none for a refused write, a failed condition or a replay', async () => {
    const rex = await create('Rex');
    const tom = await create('Tom', { 'Idempotency-Key': 'events-tom' });
    const replay = await create('Tom', { 'Idempotency-Key': 'events-tom' });
    const refused = await api.client.post('/pets', { name: '', categoryId: 2 });
    expect([rex.answer.status, tom.answer.status, replay.answer.status, refused.status]).toEqual([
      201, 201, 201, 400,
    ]);
    expect(replay.answer.headers.get('idempotent-replayed')).toBe('true');

    expect((await change(rex.id, 1, { status: 'sold' })).status).toBe(200);
    expect((await change(rex.id, 1, { status: 'pending' })).status).toBe(412);
    expect((await change(rex.id, 2, { name: 'Rex', categoryId: 2 })).status).toBe(200);
    expect((await change(987_654, 1, { status: 'sold' })).status).toBe(404);
    expect((await remove(tom.id, 1)).status).toBe(204);
    expect((await remove(tom.id, 2)).status).toBe(404);

    await everyEventWritten();
    const logged = readEventLog(eventsFile());
    // In each pet's order: the bus promises no order between pets, nor does the publisher.
    const ofPet = (id: number) =>
      logged.filter(({ petId }) => petId === id).map(({ detailType, eventId }) => `${detailType} ${eventId}`);
    expect([ofPet(rex.id), ofPet(tom.id)]).toEqual([
      [`PetCreated pet-${rex.id}-v1`, `PetChanged pet-${rex.id}-v2`, `PetChanged pet-${rex.id}-v3`],
      [`PetCreated pet-${tom.id}-v1`, `PetRemoved pet-${tom.id}-v2`],
    ]);
    expect(logged).toHaveLength(5);
    const line = (eventId: string) =>
      JSON.parse(logged.find((event) => event.eventId === eventId)?.line ?? '{}');
    const [sold, unchanged, removed] = [`pet-${rex.id}-v2`, `pet-${rex.id}-v3`, `pet-${tom.id}-v2`].map(line);
    expect(sold.detail).toMatchObject({
      changed: ['status'],
      previous: { status: 'available' },
      pet: { status: 'sold' },
    });
    expect(unchanged.detail.changed).toEqual([]);
    expect(removed.detail).toMatchObject({ previous: { id: tom.id, name: 'Tom' } });
    expect(removed.detail).not.toHaveProperty('pet');
    expect(sold).toMatchObject({ version: '0', source: 'pet-store.pets', resources: [], region: 'ddblocal' });
  });

  it('are POSTed to each URL of PETSTORE_EVENT_TARGETS, in order, a refused one sent again', async () => {
    await everyEventWritten();

    await expect
      .poll(() => target.received, { timeout: 30_000, interval: 100 })
      .toEqual(readFileSync(eventsFile(), 'utf8').trim().split('\n'));
  });

  it('resume after the place a stopped publisher kept, with no copy', async () => {
    await everyEventWritten();
    await events?.stop();
    const rex = await create('Rex after the stop');
    await startEvents();

    await everyEventWritten();
    const ids = readEventLog(eventsFile()).map(({ eventId }) => eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.at(-1)).toBe(`pet-${rex.id}-v1`);
  });
});

describe('the event source mapping of npm start', () => {
  it('splits a batch the function fails, retries the failing record, writes where it is in the stream once it gives up, and goes on', async () => {
    const tables = await createTestTables('mapping');
    const dir = mkdtempSync(join(tmpdir(), 'petstore-mapping-'));
    const admin = createLocalClient(tables.endpoint);
    const streams = new DynamoDBStreamsClient({ ...LOCAL_CLIENT, endpoint: tables.endpoint });
    const pets = new PetsTable({
      client: createDocumentClient({ endpoint: tables.endpoint }),
      petsTable: tables.names.pets,
    });
    try {
      const { Table } = await admin.send(new DescribeTableCommand({ TableName: tables.names.pets }));
      const streamArn = Table?.LatestStreamArn ?? '';
      for (const id of [1, 2, 3])
        await pets.create({ id, name: `pet ${id}`, categoryId: 1, status: 'available' });
      const paths = localDataPaths(dir);
      const bus = new EventLog(paths.events, originOf(streamArn));
      const publish = publishPetEvents({ bus, logger: createLogger({ logLevel: 'SILENT' }) });
      const batches: number[][] = [];
      const poller = new StreamPoller({
        client: streams,
        streamArn,
        functionName: petEventsPublisher.name,
        // Pet 2's record makes the function fail, wherever it is in a batch. In an invocation
        // store of its own, as npm start runs it (this process lets invocations overlap).
        handler: inInvocationStore(async (event, context) => {
          const ids = event.Records.map((record) => Number(record.dynamodb?.Keys?.id?.N));
          batches.push(ids);
          if (ids.includes(2)) throw new Error('pet 2 breaks the function');
          return publish(event, context);
        }),
        mapping: { ...petEventsPublisher.mapping, retryAttempts: 1 },
        positionFile: paths.eventsStream,
        failuresFile: paths.eventFailures,
        timeoutMs: HANDLER_TIMEOUT_SECONDS * 1_000,
        log: () => undefined,
      });
      poller.start();
      await expect
        .poll(() => readEventLog(paths.events).map(({ eventId }) => eventId), { timeout: 30_000 })
        .toEqual(['pet-1-v1', 'pet-3-v1']);
      await poller.stop();

      expect(batches).toEqual([[1, 2, 3], [1, 2], [1], [2], [2], [3]]);
      const [failure, ...more] = readFileSync(paths.eventFailures, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(more).toEqual([]);
      expect(failure).toMatchObject({
        requestContext: {
          condition: 'RetryAttemptsExhausted',
          approximateInvokeCount: 2,
          functionArn: expect.stringContaining(':function:publishPetEvents'),
        },
        responseContext: { functionError: 'Unhandled' },
        version: '1.0',
        DDBStreamBatchInfo: { batchSize: 1, streamArn, startSequenceNumber: expect.any(String) },
      });
      expect(failure.DDBStreamBatchInfo.startSequenceNumber).toBe(
        failure.DDBStreamBatchInfo.endSequenceNumber,
      );
      // What it gave up on is behind it too: a restart goes on after it.
      expect(JSON.parse(readFileSync(paths.eventsStream, 'utf8')).streamArn).toBe(streamArn);
    } finally {
      admin.destroy();
      streams.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
