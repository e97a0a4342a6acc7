/**
 * An event bus as the publisher uses it: PutEvents' entries and per-entry results, in EventBridge's
 * terms ("Sending events with PutEvents in Amazon EventBridge"). The stack's bus is EventBridge
 * (shared/adapters/eventbridge/event-bus.ts); `npm start`'s writes what a target would receive.
 */

export interface BusEntry {
  readonly source: string;
  readonly detailType: string;
  /** The event's payload, as JSON. */
  readonly detail: string;
  /** When the event occurred: the envelope's `time`. */
  readonly time: Date;
}

/** One entry's outcome, at its index: EventBridge's `EventId`, or its `ErrorCode` and `ErrorMessage`. */
export type BusResult =
  | { readonly eventId: string }
  | { readonly errorCode: string; readonly errorMessage?: string };

export interface EventBus {
  /** At most PUT_EVENTS_LIMITS.entries entries of PUT_EVENTS_LIMITS.bytes together; one result per entry, in order. */
  put(entries: readonly BusEntry[]): Promise<readonly BusResult[]>;
}

/** A PutEvents call's limits ("Amazon EventBridge quotas"; "Calculating Amazon EventBridge PutEvents event entry size"). */
export const PUT_EVENTS_LIMITS = { entries: 10, bytes: 256 * 1024 } as const;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** An entry's size as EventBridge counts it: `Time` 14 bytes, then Source, DetailType and Detail in UTF-8. */
export const entrySize = (entry: BusEntry): number =>
  14 + utf8Bytes(entry.source) + utf8Bytes(entry.detailType) + utf8Bytes(entry.detail);

export const isFailure = (
  result: BusResult | undefined,
): result is Extract<BusResult, { readonly errorCode: string }> =>
  result === undefined || 'errorCode' in result;

/** `items` in order, as PutEvents calls within PUT_EVENTS_LIMITS (an entry too large alone goes alone). */
export const putEventsCalls = <T>(items: readonly T[], entryOf: (item: T) => BusEntry): T[][] => {
  const calls: T[][] = [];
  let bytes = 0;
  for (const item of items) {
    const size = entrySize(entryOf(item));
    const last = calls.at(-1);
    if (last && last.length < PUT_EVENTS_LIMITS.entries && bytes + size <= PUT_EVENTS_LIMITS.bytes) {
      last.push(item);
      bytes += size;
    } else {
      calls.push([item]);
      bytes = size;
    }
  }
  return calls;
};
