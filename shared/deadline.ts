import { AsyncLocalStorage } from 'node:async_hooks';

/** One deadline per request for all its DynamoDB calls, then a 503 (a create of several once took 6 s). */

/** From API Gateway's receipt, authorizer and function together (docs/operate.md, "Timeouts and memory"). */
export const REQUEST_BUDGET_MS = 3_000;

export class Deadline {
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly at: number) {}

  static in(ms: number, now = Date.now()): Deadline {
    return new Deadline(now + ms);
  }

  remainingMs(now = Date.now()): number {
    return Math.max(0, this.at - now);
  }

  /** Aborts at the deadline with a `TimeoutError`: one unref'd timer per request, made on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.timer = setTimeout(
        () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
        this.remainingMs(),
      );
      this.timer.unref?.();
      this.controller = controller;
    }
    return this.controller.signal;
  }

  /** Stops the timer; `AbortSignal.timeout` cannot be, and fired later inside another invocation. */
  end(): void {
    clearTimeout(this.timer);
  }
}

export interface RequestTiming {
  /** `requestContext.requestTimeEpoch`; a time in the future counts as now. */
  readonly receivedAt?: number;
  readonly remainingMs: number;
}

/** The deadline of a request: its budget from when it was received, and never past the Lambda's own. */
export const requestDeadline = ({ receivedAt, remainingMs }: RequestTiming, now = Date.now()): Deadline => {
  const start = receivedAt !== undefined && Number.isFinite(receivedAt) ? Math.min(receivedAt, now) : now;
  return new Deadline(Math.min(start + REQUEST_BUDGET_MS, now + remainingMs));
};

const current = new AsyncLocalStorage<Deadline>();

/** Runs `work` under `deadline`, or under the one it runs under when earlier: a deadline never outlasts another. */
export const withDeadline = <T>(deadline: Deadline, work: () => T): T => {
  const outer = current.getStore();
  return current.run(outer && outer.at < deadline.at ? outer : deadline, work);
};

/** The deadline of the request being served; none outside a request (tools, tests, set-up). */
export const currentDeadline = (): Deadline | undefined => current.getStore();

/** A Lambda handler whose every invocation runs under the deadline `deadlineOf` gives it, ended with it. */
export const withinDeadline =
  <E, C, R>(deadlineOf: (event: E, context: C) => Deadline, handler: (event: E, context: C) => Promise<R>) =>
  (event: E, context: C): Promise<R> => {
    const deadline = deadlineOf(event, context);
    return withDeadline(deadline, () => handler(event, context)).finally(() => deadline.end());
  };
