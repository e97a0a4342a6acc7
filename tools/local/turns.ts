import type { Deadline } from '#shared/deadline';
import { GatewayRefusal } from '#tools/local/gateway-refusal';

/**
 * At most `concurrency` requests at once, turns going round the callers (a line each): one caller's burst
 * delays another's request by one turn. Lambda scales out instead (docs/aws-ledger.md, "Lambda under load").
 */
export class Turns {
  private running = 0;
  /** Each caller's waiting requests, callers in the order their next turn comes. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly concurrency: number) {}

  /** Runs `work` at `caller`'s next turn; INTEGRATION_TIMEOUT if `deadline` passes first (in AWS none waits). */
  run<T>(caller: string, deadline: Deadline, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        clearTimeout(timer);
        this.running += 1;
        Promise.resolve()
          .then(work)
          .then(resolve, reject)
          .finally(() => {
            this.running -= 1;
            this.startNext();
          });
      };
      const timer = setTimeout(() => {
        this.withdraw(caller, start);
        reject(GatewayRefusal.of('INTEGRATION_TIMEOUT'));
      }, deadline.remainingMs());
      const line = this.waiting.get(caller);
      // A caller already waiting keeps its place in the round; a new one joins at its back.
      if (line) line.push(start);
      else this.waiting.set(caller, [start]);
      this.startNext();
    });
  }

  /** Gives free turns to the callers whose turn it is, each then to the back of the round. */
  private startNext(): void {
    while (this.running < this.concurrency) {
      const next = this.waiting.entries().next();
      if (next.done) return;
      const [caller, line] = next.value;
      const start = line.shift();
      this.waiting.delete(caller);
      if (line.length > 0) this.waiting.set(caller, line);
      start?.();
    }
  }

  private withdraw(caller: string, start: () => void): void {
    const line = this.waiting.get(caller) ?? [];
    const index = line.indexOf(start);
    if (index >= 0) line.splice(index, 1);
    if (line.length === 0) this.waiting.delete(caller);
  }
}
