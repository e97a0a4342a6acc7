import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { petEventsPublisher, publishPetEvents } from '#functions/publish-pet-events';
import { createLocalClient, LOCAL_CLIENT } from '#shared/adapters/dynamodb/client';
import type { LogLevel } from '#shared/config';
import { HANDLER_TIMEOUT_SECONDS } from '#shared/lambda';
import { createLogger } from '#shared/observability/logger';
import { inInvocationStore } from '#tools/lambda/invoke-store';
import { EventLog, originOf } from '#tools/local/event-log';
import { EventTargets } from '#tools/local/event-targets';
import { localDataPaths } from '#tools/local/settings';
import { StreamPoller } from '#tools/local/stream-poller';

/**
 * `npm start`'s events: the publisher's handler, as the stack deploys it but for its bus, on the
 * pets table's stream in DynamoDB Local, polled as the event source mapping polls; each event
 * appended to `<data dir>/events.ndjson` and POSTed to each URL of PETSTORE_EVENT_TARGETS.
 */

export interface LocalPetEventsOptions {
  readonly endpoint: string;
  readonly petsTable: string;
  readonly dataDir: string;
  readonly targets: readonly string[];
  readonly logLevel?: LogLevel;
  readonly log: (line: string) => void;
}

export interface LocalPetEvents {
  /** events.ndjson. */
  readonly file: string;
  readonly targets: readonly string[];
  stop(): Promise<void>;
}

export const startLocalPetEvents = async (options: LocalPetEventsOptions): Promise<LocalPetEvents> => {
  const paths = localDataPaths(options.dataDir);
  const admin = createLocalClient(options.endpoint);
  let streamArn: string | undefined;
  try {
    ({ LatestStreamArn: streamArn } =
      (await admin.send(new DescribeTableCommand({ TableName: options.petsTable }))).Table ?? {});
  } finally {
    admin.destroy();
  }
  if (!streamArn) throw new Error(`The table ${options.petsTable} has no stream`);

  const bus = new EventLog(paths.events, originOf(streamArn));
  const targets = new EventTargets({
    file: paths.events,
    stateFile: paths.eventTargets,
    urls: options.targets,
    log: options.log,
  });
  bus.onAppend(() => targets.wake());
  const client = new DynamoDBStreamsClient({ ...LOCAL_CLIENT, endpoint: options.endpoint });
  const poller = new StreamPoller({
    client,
    streamArn,
    functionName: petEventsPublisher.name,
    // Its invocations overlap the API's: each in a store of its own, as the gateway runs the API's.
    handler: inInvocationStore(
      publishPetEvents({ bus, logger: createLogger({ logLevel: options.logLevel ?? 'WARN' }) }),
    ),
    mapping: petEventsPublisher.mapping,
    positionFile: paths.eventsStream,
    failuresFile: paths.eventFailures,
    timeoutMs: HANDLER_TIMEOUT_SECONDS * 1_000,
    log: options.log,
  });
  // The targets' offsets first: a URL new here receives what is published from now on, all of it.
  targets.start();
  poller.start();
  return {
    file: paths.events,
    targets: options.targets,
    stop: async () => {
      await poller.stop();
      await targets.stop();
      client.destroy();
    },
  };
};
