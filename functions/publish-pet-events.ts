import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createEventBridgeClient, eventBridgeBus } from '#shared/adapters/eventbridge/event-bus';
import type { LambdaFunction } from '#shared/composition/function';
import { requireEventBus } from '#shared/config';
import { publishRecords } from '#shared/events/publish';
import type { StreamHandler } from '#shared/lambda';
import { createLogger, invocationLogging, type Logger } from '#shared/observability/logger';
import type { EventBus } from '#shared/ports/event-bus';

/**
 * Not an operation of the API but the function the pets table's stream invokes: it publishes
 * PetCreated, PetChanged and PetRemoved (shared/events/pet-events.ts) to the stage's bus.
 */
export const petEventsPublisher = {
  name: 'publishPetEvents',
  // Stryker disable next-line StringLiteral: the function's description in the Lambda console, read by the stack only
  description: "Publishes the pets table's changes to the stage's event bus",
  /**
   * Its event source mapping on the stream, as the stack creates it and `npm start` polls
   * ("Lambda parameters for Amazon DynamoDB event source mappings"): from the oldest record, a
   * batch as soon as records are there, failures reported per record, a failing batch split in
   * two, retried 10 times or for an hour at most, then its place in the stream sent to a queue.
   */
  mapping: {
    startingPosition: 'TRIM_HORIZON',
    batchSize: 100,
    maxBatchingWindowSeconds: 0,
    reportBatchItemFailures: true,
    bisectBatchOnError: true,
    retryAttempts: 10,
    maxRecordAgeSeconds: 3_600,
    parallelizationFactor: 1,
  },
} as const;

export interface PublisherDependencies {
  readonly bus: EventBus;
  readonly logger: Logger;
}

/** The handler: a batch of the stream published, what the bus refused reported as batch item failures. */
export const publishPetEvents = ({ bus, logger }: PublisherDependencies): StreamHandler =>
  middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    // A stream event carries no request id: its lines name the invocation (function_request_id).
    .use(invocationLogging(logger, () => ({})))
    .handler((event, context) =>
      publishRecords(event.Records, {
        bus,
        logger,
        remainingMs: () => context.getRemainingTimeInMillis(),
      }),
    );

/**
 * The publisher's function: no table (the event source mapping reads the stream for it), so its
 * bundle carries the EventBridge client and no DynamoDB one; the stage's bus
 * (PETSTORE_EVENT_BUS_NAME), required at cold start.
 */
export const publishPetEventsFunction: LambdaFunction<StreamHandler, Record<never, never>> = {
  name: petEventsPublisher.name,
  uses: {},
  data: [],
  tables: [],
  handler: ({ logger }, config) =>
    publishPetEvents({
      logger,
      bus: eventBridgeBus(createEventBridgeClient(), requireEventBus(config ?? {})),
    }),
  build: (config) => publishPetEventsFunction.handler({ logger: createLogger(config) }, config),
};
