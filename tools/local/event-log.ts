import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import type { BusEntry, EventBus } from '#shared/ports/event-bus';

/**
 * `npm start`'s event bus: each event PutEvents takes is appended to `<data dir>/events.ndjson`,
 * one JSON line each, as EventBridge delivers an event to a target ("Amazon EventBridge events":
 * `version`, `id`, `detail-type`, `source`, `account`, `time`, `region`, `resources`, `detail`).
 */

export interface EventEnvelope {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': string;
  readonly source: string;
  readonly account: string;
  /** To the second, as EventBridge writes it: `2026-12-07T15:36:12Z`. */
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

/** The account and region events carry: the stream's (DynamoDB Local's `ddblocal`, `000000000000`). */
export interface EventOrigin {
  readonly account: string;
  readonly region: string;
}

/** `arn:aws:dynamodb:<region>:<account>:table/…`'s region and account. */
export const originOf = (arn: string): EventOrigin => {
  const [, , , region = 'local', account = '000000000000'] = arn.split(':');
  return { account, region };
};

/**
 * EventBridge gives every event an id of its own; here it is made from the event's content, so a
 * copy of an event published again (after a crash) is the same line, `id` included.
 */
const idOf = (entry: BusEntry): string => {
  const hex = createHash('sha256')
    .update(`${entry.source}\n${entry.detailType}\n${entry.detail}`)
    .digest('hex');
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `4${hex.slice(13, 16)}`,
    `8${hex.slice(17, 20)}`,
    hex.slice(20, 32),
  ].join('-');
};

export const envelopeOf = (entry: BusEntry, origin: EventOrigin): EventEnvelope => ({
  version: '0',
  id: idOf(entry),
  'detail-type': entry.detailType,
  source: entry.source,
  account: origin.account,
  time: entry.time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  region: origin.region,
  resources: [],
  detail: JSON.parse(entry.detail),
});

/** Appends each PutEvents call's events to `file`, synced before it answers; tells `onAppend` after. */
export class EventLog implements EventBus {
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly file: string,
    private readonly origin: EventOrigin,
  ) {}

  async put(entries: readonly BusEntry[]) {
    const envelopes = entries.map((entry) => envelopeOf(entry, this.origin));
    const fd = openSync(this.file, 'a', 0o600);
    try {
      writeSync(fd, envelopes.map((envelope) => `${JSON.stringify(envelope)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    for (const listener of this.listeners) listener();
    return envelopes.map(({ id }) => ({ eventId: id }));
  }

  onAppend(listener: () => void): void {
    this.listeners.add(listener);
  }
}
