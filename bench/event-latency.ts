import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { createPetFunction } from '#functions/create-pet';
import { petEventsPublisher, publishPetEvents } from '#functions/publish-pet-events';
import { LOCAL_CLIENT } from '#shared/adapters/dynamodb/client';
import { HANDLER_TIMEOUT_SECONDS } from '#shared/lambda';
import { createLogger } from '#shared/observability/logger';
import type { EventBus } from '#shared/ports/event-bus';
import { lambdaContext } from '#tools/lambda/context';
import { EventLog, originOf } from '#tools/local/event-log';
import { localDataPaths } from '#tools/local/settings';
import { POLL_INTERVAL_MS, StreamPoller } from '#tools/local/stream-poller';
import { BENCH_CONTEXT, freshRequest } from './lambda-context';
import type { Admin } from './tables';
import { createBenchTables } from './tables';
import { benchConfig, requestTo } from './targets';

/** Nearest-rank percentiles. */
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? Number.NaN;

/**
 * How long after a write's answer its event is written, as `npm start` publishes it: createPet's
 * handler in this process, the publisher on DynamoDB Local's stream through the local event source
 * mapping, the event's line appended to events.ndjson. Each create waits a random part of the
 * mapping's poll interval first, so the writes do not fall into step with its polling.
 */
export const measureEventLatency = async (options: {
  readonly admin: Admin;
  readonly endpoint: string;
  readonly workDir: string;
  readonly writes: number;
}) => {
  const { admin, endpoint, writes } = options;
  const names = await createBenchTables(admin, 'bench-events');
  const { Table } = await admin.client.send(new DescribeTableCommand({ TableName: names.pets }));
  const streamArn = Table?.LatestStreamArn ?? '';
  const dataDir = mkdtempSync(join(options.workDir, 'events-'));
  const paths = localDataPaths(dataDir);
  const log = new EventLog(paths.events, originOf(streamArn));
  const written = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const bus: EventBus = {
    put: async (entries) => {
      const results = await log.put(entries);
      const at = performance.now();
      for (const { detail } of entries) {
        const { eventId } = JSON.parse(detail) as { eventId: string };
        written.set(eventId, at);
        waiting.get(eventId)?.(at);
      }
      return results;
    },
  };
  const streams = new DynamoDBStreamsClient({ ...LOCAL_CLIENT, endpoint });
  const poller = new StreamPoller({
    client: streams,
    streamArn,
    functionName: petEventsPublisher.name,
    handler: publishPetEvents({ bus, logger: createLogger({ logLevel: 'SILENT' }) }),
    mapping: petEventsPublisher.mapping,
    positionFile: paths.eventsStream,
    failuresFile: paths.eventFailures,
    timeoutMs: HANDLER_TIMEOUT_SECONDS * 1_000,
    log: () => undefined,
  });
  const create = createPetFunction.build(benchConfig(endpoint, names));
  const request = requestTo(createPetFunction.operation);
  const samples: number[] = [];
  poller.start();
  try {
    for (let write = 0; write < writes; write++) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_INTERVAL_MS));
      const answer = (await create(
        freshRequest(request),
        lambdaContext('bench', BENCH_CONTEXT),
      )) as APIGatewayProxyResult;
      const answered = performance.now();
      if (answer.statusCode !== 201) throw new Error(`createPet answered ${answer.statusCode}`);
      const eventId = `pet-${(JSON.parse(answer.body) as { id: number }).id}-v1`;
      const at =
        written.get(eventId) ??
        (await new Promise<number>((resolve) => {
          waiting.set(eventId, resolve);
        }));
      samples.push(at - answered);
    }
  } finally {
    await poller.stop();
    streams.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    writes,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
};
export type EventLatency = Awaited<ReturnType<typeof measureEventLatency>>;
