import type { PacingClock } from '#tools/contract/api-client';

/**
 * A clock for the tests of a client that paces itself: its time moves only when nothing it
 * watches is in flight and someone sleeps, straight to the earliest wake-up. A paced run so takes
 * no real seconds, yet every wait it asks for passes in this clock's time, which a server on the
 * same clock (the local gateway's fair use) holds it to. Requests count as in flight through
 * `fetch`, which the test puts in place of the global one (`vi.stubGlobal('fetch', clock.fetch)`).
 */
export class VirtualClock implements PacingClock {
  private time: number;
  private readonly sleepers: { readonly due: number; readonly wake: () => void }[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly realFetch = globalThis.fetch;

  constructor(start = Date.now()) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  readonly sleep = (ms: number): Promise<void> =>
    new Promise((wake) => {
      this.sleepers.push({ due: this.time + ms, wake });
      this.schedule();
    });

  readonly fetch: typeof fetch = async (...args) => {
    this.inFlight += 1;
    try {
      return await this.realFetch(...args);
    } finally {
      this.inFlight -= 1;
      this.schedule();
    }
  };

  /** Once the pending callbacks have run: the earliest sleeper wakes, if nothing is in flight. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight > 0 || this.sleepers.length === 0) return;
      this.sleepers.sort((a, b) => a.due - b.due);
      const next = this.sleepers.shift();
      if (!next) return;
      this.time = Math.max(this.time, next.due);
      next.wake();
      this.schedule();
    });
  }
}
