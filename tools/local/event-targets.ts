import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileAtomically } from '#tools/local/files';

/**
 * Each URL of PETSTORE_EVENT_TARGETS receives every line of events.ndjson, in order, as
 * EventBridge delivers to an API destination ("API destinations as targets in Amazon
 * EventBridge"): a POST of the event as JSON within 5 seconds; 401, 407, 409, 429, 5xx, a
 * timeout or no answer retried with exponential back-off and jitter, for 24 hours and 185
 * attempts at most ("How EventBridge retries delivering events"); any other answer is final.
 * How far each URL has received the file is kept beside it, so a restart resumes there.
 */

export const DELIVERY = {
  timeoutMs: 5_000,
  maxAttempts: 185,
  maxAgeMs: 24 * 60 * 60 * 1_000,
  /** The first retry waits up to this (jitter), each next one twice as long, up to `maxBackoffMs`. */
  firstBackoffMs: 200,
  maxBackoffMs: 60_000,
} as const;

type DeliverySettings = Record<keyof typeof DELIVERY, number>;

const RETRIED = new Set([401, 407, 409, 429]);
export const isRetried = (status: number): boolean => RETRIED.has(status) || status >= 500;

export interface EventTargetsOptions {
  /** events.ndjson. */
  readonly file: string;
  /** Where each URL's offset in `file` is kept. */
  readonly stateFile: string;
  readonly urls: readonly string[];
  readonly log: (line: string) => void;
  /** @default DELIVERY */
  readonly delivery?: Partial<DeliverySettings>;
}

type Offsets = Record<string, number>;

const readOffsets = (stateFile: string): Offsets => {
  try {
    const parsed: unknown = JSON.parse(readFileSync(stateFile, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Offsets) : {};
  } catch {
    return {};
  }
};

const sizeOf = (file: string): number => (existsSync(file) ? statSync(file).size : 0);

/** The whole lines of `file` from byte `offset` on, each with the offset after it. */
const linesFrom = (file: string, offset: number): { line: string; end: number }[] => {
  const size = sizeOf(file);
  if (size <= offset) return [];
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  const lines: { line: string; end: number }[] = [];
  let start = 0;
  for (let newline = buffer.indexOf(10); newline >= 0; newline = buffer.indexOf(10, start)) {
    lines.push({ line: buffer.subarray(start, newline).toString('utf8'), end: offset + newline + 1 });
    start = newline + 1;
  }
  return lines;
};

export class EventTargets {
  private readonly offsets: Offsets;
  private readonly settings: DeliverySettings;
  private stopped = false;
  private readonly wakers = new Set<() => void>();
  private readonly running: Promise<void>[] = [];
  private readonly aborts = new AbortController();

  constructor(private readonly options: EventTargetsOptions) {
    this.settings = { ...DELIVERY, ...options.delivery };
    const kept = readOffsets(options.stateFile);
    // A URL new to this data directory receives what is published from now on, as a new rule's target does.
    const end = sizeOf(options.file);
    this.offsets = Object.fromEntries(options.urls.map((url) => [url, Math.min(kept[url] ?? end, end)]));
    this.save();
  }

  /** One delivery loop per URL. */
  start(): void {
    for (const url of this.options.urls) this.running.push(this.deliverAll(url));
  }

  /** New lines are in the file. */
  wake(): void {
    for (const waker of this.wakers) waker();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.aborts.abort();
    this.wake();
    await Promise.all(this.running);
  }

  private save(): void {
    writeFileAtomically(this.options.stateFile, `${JSON.stringify(this.offsets)}\n`);
  }

  /** A wait for new lines, that wake() and stop() end, and none once stopped. */
  private waitForLines(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  private async deliverAll(url: string): Promise<void> {
    while (!this.stopped) {
      const lines = linesFrom(this.options.file, this.offsets[url] ?? 0);
      if (lines.length === 0) {
        await this.waitForLines(1_000);
        continue;
      }
      for (const { line, end } of lines) {
        if (!(await this.deliver(url, line))) return;
        this.offsets[url] = end;
        this.save();
      }
    }
  }

  /** Delivered, or given up on (said so); false only when stopped first. */
  private async deliver(url: string, event: string): Promise<boolean> {
    const { timeoutMs, maxAttempts, maxAgeMs, firstBackoffMs, maxBackoffMs } = this.settings;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      if (this.stopped) return false;
      const outcome = await this.post(url, event, timeoutMs);
      if (outcome === 'delivered') return true;
      if (outcome !== 'retry') {
        this.options.log(`Event not delivered to ${url}: it answered ${outcome}, which is not retried`);
        return true;
      }
      if (attempt >= maxAttempts || Date.now() - started >= maxAgeMs) {
        this.options.log(`Event not delivered to ${url} after ${attempt} attempts: given up`);
        return true;
      }
      const backoff = Math.min(maxBackoffMs, firstBackoffMs * 2 ** (attempt - 1));
      // Only stop() ends a back-off: new events do not make a failing URL's retries come sooner.
      await sleep(backoff / 2 + Math.random() * (backoff / 2), undefined, {
        signal: this.aborts.signal,
      }).catch(() => undefined);
    }
  }

  private async post(url: string, event: string, timeoutMs: number): Promise<'delivered' | 'retry' | number> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: event,
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), this.aborts.signal]),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return 'delivered';
      return isRetried(response.status) ? 'retry' : response.status;
    } catch {
      // No answer, a refused connection, or the 5 s passed.
      return 'retry';
    }
  }
}
