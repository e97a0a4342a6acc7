import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  currentDeadline,
  Deadline,
  REQUEST_BUDGET_MS,
  requestDeadline,
  withDeadline,
  withinDeadline,
} from '#shared/deadline';

const NOW = 1_800_000_000_000;

describe("a request's deadline", () => {
  it('counts its budget from when API Gateway received the request, the authorizer’s time included', () => {
    expect(requestDeadline({ receivedAt: NOW - 1_200, remainingMs: 14_500 }, NOW).at).toBe(
      NOW - 1_200 + REQUEST_BUDGET_MS,
    );
  });

  it('counts from now when the request time is unknown, or in the future of this clock', () => {
    expect(requestDeadline({ remainingMs: 14_500 }, NOW).at).toBe(NOW + REQUEST_BUDGET_MS);
    expect(requestDeadline({ receivedAt: NOW + 5_000, remainingMs: 14_500 }, NOW).at).toBe(
      NOW + REQUEST_BUDGET_MS,
    );
    expect(requestDeadline({ receivedAt: Number.NaN, remainingMs: 14_500 }, NOW).at).toBe(
      NOW + REQUEST_BUDGET_MS,
    );
  });

  it('has passed already for a request received longer ago than its budget', () => {
    const deadline = requestDeadline({ receivedAt: NOW - REQUEST_BUDGET_MS - 1, remainingMs: 14_500 }, NOW);

    expect(deadline.remainingMs(NOW)).toBe(0);
  });

  it('is never later than the time the function has left', () => {
    expect(requestDeadline({ receivedAt: NOW, remainingMs: 800 }, NOW).at).toBe(NOW + 800);
  });

  it('aborts its signal when it is reached', async () => {
    const deadline = Deadline.in(20);

    await once(deadline.signal, 'abort');

    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(DOMException);
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
    // Timers run on the monotonic clock, `at` is wall-clock time: they may differ by a millisecond.
    expect(deadline.remainingMs()).toBeLessThanOrEqual(1);
  });
});

describe('the deadline of the request being served', () => {
  it('follows the request through everything it awaits, each request its own, and is none outside one', async () => {
    const first = Deadline.in(1_000);
    const second = Deadline.in(2_000);
    const seen = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentDeadline();
    };

    const [inFirst, inSecond] = await Promise.all([withDeadline(first, seen), withDeadline(second, seen)]);

    expect(inFirst).toBe(first);
    expect(inSecond).toBe(second);
    expect(currentDeadline()).toBeUndefined();
  });

  it('never outlasts the deadline it is set within, and may end before it', () => {
    const request = Deadline.in(1_000);
    const later = Deadline.in(3_000);
    const sooner = Deadline.in(500);

    const [withLater, withSooner] = withDeadline(request, () => [
      withDeadline(later, currentDeadline),
      withDeadline(sooner, currentDeadline),
    ]);

    expect(withLater).toBe(request);
    expect(withSooner).toBe(sooner);
  });
});

describe('a handler within its deadline', () => {
  it('stops the deadline when the invocation ends: nothing is left to fire in a later one', async () => {
    let signal: AbortSignal | undefined;
    const handler = withinDeadline(
      () => Deadline.in(20),
      async () => {
        signal = currentDeadline()?.signal;
        return 'answer';
      },
    );

    await expect(handler(undefined, undefined)).resolves.toBe('answer');
    // A later deadline's timer fires after the first one's would have: timers keep their order.
    await once(Deadline.in(60).signal, 'abort');

    expect(signal?.aborted).toBe(false);
  });

  it('still aborts what the invocation awaits when the deadline comes first', async () => {
    const handler = withinDeadline(
      () => Deadline.in(20),
      async () => {
        const signal = currentDeadline()?.signal;
        await new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(signal.reason)),
        );
      },
    );

    await expect(handler(undefined, undefined)).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
