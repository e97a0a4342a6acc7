import { describe, expect, it } from 'vitest';
import { Deadline } from '#shared/deadline';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import { Turns } from '#tools/local/turns';

/** How the local gateway shares its concurrency among callers: a round of turns, a deadline to wait by. */

/** A promise the test settles when it chooses. */
const gate = () => {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
};

const LATER = () => Deadline.in(60_000);

describe('turns', () => {
  it('never runs more than its concurrency at once, and runs every request', async () => {
    const turns = new Turns(2);
    let running = 0;
    let most = 0;
    const work = async (value: number) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      return value;
    };

    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((value) => turns.run('a', LATER(), () => work(value))),
    );

    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it("gives turns round the callers: one caller's burst delays another's request by one turn", async () => {
    const turns = new Turns(1);
    const order: string[] = [];
    const first = gate();
    const record = (name: string) => async () => {
      order.push(name);
    };

    const all = [
      turns.run('a', LATER(), async () => {
        order.push('a1');
        await first.opened;
      }),
      turns.run('a', LATER(), record('a2')),
      turns.run('a', LATER(), record('a3')),
      turns.run('b', LATER(), record('b1')),
    ];
    first.open();
    await Promise.all(all);

    expect(order).toEqual(['a1', 'a2', 'b1', 'a3']);
  });

  it('passes a failure of the work on, and goes on to the next turn', async () => {
    const turns = new Turns(1);

    const failed = turns.run('a', LATER(), () => Promise.reject(new Error('broken')));
    const next = turns.run('a', LATER(), async () => 'ran');

    await expect(failed).rejects.toThrow('broken');
    expect(await next).toBe('ran');
  });

  it('refuses a request still waiting at its deadline with INTEGRATION_TIMEOUT, never runs it, and keeps the rest of its line', async () => {
    const turns = new Turns(1);
    const ran: string[] = [];
    const first = gate();

    const running = turns.run('a', LATER(), async () => {
      ran.push('a1');
      await first.opened;
    });
    const late = turns.run('a', Deadline.in(0), async () => {
      ran.push('a2');
    });
    const after = turns.run('a', LATER(), async () => {
      ran.push('a3');
    });

    const refusal = await late.catch((error: unknown) => error);
    first.open();
    await Promise.all([running, after]);

    expect(refusal).toBeInstanceOf(GatewayRefusal);
    expect((refusal as GatewayRefusal).code).toBe('SERVICE_UNAVAILABLE');
    expect((refusal as GatewayRefusal).answer).toEqual(GatewayRefusal.of('INTEGRATION_TIMEOUT').answer);
    expect(ran).toEqual(['a1', 'a3']);
  });

  it('forgets a caller whose only waiting request passed its deadline', async () => {
    const turns = new Turns(1);
    const ran: string[] = [];
    const first = gate();

    const running = turns.run('a', LATER(), async () => {
      ran.push('a1');
      await first.opened;
    });
    const late = turns.run('b', Deadline.in(0), async () => {
      ran.push('b1');
    });
    await late.catch(() => undefined);
    const again = turns.run('b', LATER(), async () => {
      ran.push('b2');
    });
    first.open();
    await Promise.all([running, again]);

    expect(ran).toEqual(['a1', 'b2']);
  });
});
