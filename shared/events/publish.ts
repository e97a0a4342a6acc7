import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { streamedPetOf } from '#shared/adapters/dynamodb/pet-stream';
import { PET_EVENTS_SOURCE, type PetEvent, petEventOf } from '#shared/events/pet-events';
import type { Logger } from '#shared/observability/logger';
import {
  type BusEntry,
  type EventBus,
  entrySize,
  isFailure,
  PUT_EVENTS_LIMITS,
  putEventsCalls,
} from '#shared/ports/event-bus';

/**
 * From a batch of the pets table's stream to the bus: each pet write's event, once the bus has
 * taken every earlier event of the same pet. What the bus still refuses goes back to the stream
 * as batch item failures, so the event source mapping retries from there.
 */

export interface PublishOptions {
  readonly bus: EventBus;
  readonly logger: Logger;
  /** Sends of one entry in an invocation, the first included, before its record is a failure. @default PUBLISH_ATTEMPTS */
  readonly attempts?: number;
  /** The wait before a resend, doubled after each round with a refusal. @default 100 */
  readonly backoffMs?: number;
  /** The invocation's time left (Lambda's `getRemainingTimeInMillis`). @default unlimited */
  readonly remainingMs?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export const PUBLISH_ATTEMPTS = 3;

/** No round of sends starts, nor is waited for, with less time left: its records fail instead, and the stream retries them. */
export const TIME_FOR_A_ROUND_MS = 7_000;

/** A record's place in its batch and its sequence number: what a batch item failure names. */
interface Position {
  readonly record: number;
  readonly sequenceNumber: string;
}

interface Pending extends Position {
  readonly petId: number;
  readonly eventId: string;
  readonly entry: BusEntry;
  sends: number;
}

const entryOf = ({ detailType, detail }: PetEvent): BusEntry => ({
  source: PET_EVENTS_SOURCE,
  detailType,
  detail: JSON.stringify(detail),
  time: new Date(detail.occurredAt),
});

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Publishes the events of `records` (one shard's batch, in its order). A PutEvents call holds at
 * most one event per pet, so a pet's event is sent only once the bus took the one before it; an
 * entry the bus refuses is sent again, with the same content, up to `attempts` times in all. A
 * pet whose event still fails, or whose image cannot be read, stops there: that record and every
 * later one of the pet are batch item failures, and Lambda retries from the lowest of them
 * ("Configuring partial batch response with DynamoDB and Lambda"), so no later event of the pet
 * reaches the bus before it. Records of other items than pets publish nothing.
 */
export const publishRecords = async (
  records: readonly DynamoDBRecord[],
  options: PublishOptions,
): Promise<DynamoDBBatchResponse> => {
  const { bus, logger, attempts = PUBLISH_ATTEMPTS, backoffMs = 100, sleep = defaultSleep } = options;
  const remainingMs = options.remainingMs ?? (() => Number.POSITIVE_INFINITY);
  /** Each pet's events still to send, in the stream's order; a pet stopped at a failure has none. */
  const queues = new Map<number, Pending[]>();
  const stopped = new Set<number>();
  const failed: Position[] = [];
  /** Its later records fail with this one; its earlier ones, before it in the stream, still go. */
  const block = (petId: number, position: Position) => {
    stopped.add(petId);
    failed.push(position);
  };
  /** Its event at the head of its queue failed: it and the rest of the queue wait for the stream's retry. */
  const stop = (petId: number, queue: readonly Position[]) => {
    stopped.add(petId);
    failed.push(...queue);
    queues.delete(petId);
  };

  records.forEach((record, index) => {
    const streamed = streamedPetOf(record);
    const position = { record: index, sequenceNumber: streamed.sequenceNumber };
    if (streamed.kind === 'other') return;
    const { petId } = streamed;
    if (stopped.has(petId)) {
      failed.push(position);
      return;
    }
    if (streamed.kind === 'unreadable') {
      logger.error('Not published: an image of the stream is not a valid stored pet', {
        ...position,
        petId,
        problems: streamed.problems,
      });
      block(petId, position);
      return;
    }
    const event = petEventOf(streamed.change);
    if (!event) {
      logger.warn('Not published: a change whose version did not grow by one is not one of the service', {
        ...position,
        petId,
      });
      return;
    }
    const entry = entryOf(event);
    const pending = { ...position, petId, eventId: event.detail.eventId, entry, sends: 0 };
    if (entrySize(entry) > PUT_EVENTS_LIMITS.bytes) {
      logger.error('Not published: the event is larger than PutEvents takes', { eventId: pending.eventId });
      block(petId, pending);
      return;
    }
    queues.set(petId, [...(queues.get(petId) ?? []), pending]);
  });

  // A round sends the head of each pet's queue; one that resends a refused entry waits first,
  // longer after each round with a refusal.
  for (let refusedRounds = 0; queues.size > 0; ) {
    const resends = [...queues.values()].some((queue) => (queue[0]?.sends ?? 0) > 0);
    const wait = resends ? backoffMs * 2 ** (refusedRounds - 1) : 0;
    // The wait counts: a round that would start with too little time left is not waited for.
    if (remainingMs() - wait < TIME_FOR_A_ROUND_MS) {
      logger.error('Not published: too little time left in the invocation', { pets: queues.size });
      for (const [petId, queue] of queues) stop(petId, queue);
      break;
    }
    if (wait > 0) await sleep(wait);
    const heads = [...queues.values()].flatMap((queue) => queue.slice(0, 1));
    const calls = putEventsCalls(heads, ({ entry }) => entry);
    const results = await Promise.all(calls.map((call) => bus.put(call.map(({ entry }) => entry))));
    const sent = calls.flatMap((call, callIndex) =>
      call.map((pending, index) => ({ pending, result: results[callIndex]?.[index] })),
    );
    if (sent.some(({ result }) => isFailure(result))) refusedRounds += 1;
    for (const { pending, result } of sent) {
      const queue = queues.get(pending.petId) ?? [];
      if (!isFailure(result)) {
        queue.shift();
        if (queue.length === 0) queues.delete(pending.petId);
        continue;
      }
      pending.sends += 1;
      if (pending.sends < attempts) continue;
      logger.error('Not published: the bus refused the event at every attempt', {
        eventId: pending.eventId,
        sequenceNumber: pending.sequenceNumber,
        attempts,
        errorCode: result?.errorCode,
        errorMessage: result?.errorMessage,
      });
      stop(pending.petId, queue);
    }
  }

  const batchItemFailures = failed
    .sort((a, b) => a.record - b.record)
    .map(({ sequenceNumber }) => ({ itemIdentifier: sequenceNumber }));
  return { batchItemFailures };
};
