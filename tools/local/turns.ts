import type { LimitFunction } from 'p-limit';
import type { Deadline } from '#shared/deadline';
import { GatewayRefusal } from '#tools/local/gateway-refusal';

/**
 * Runs `work` when its turn comes, unless the request's `deadline` passes first (then INTEGRATION_TIMEOUT):
 * in AWS no request waits for a turn, so none may wait past its deadline here.
 */
export const inTurn = <T>(limit: LimitFunction, deadline: Deadline, work: () => Promise<T>): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      reject(GatewayRefusal.of('INTEGRATION_TIMEOUT'));
    }, deadline.remainingMs());
    limit(async () => {
      if (expired) return;
      clearTimeout(timer);
      await work().then(resolve, reject);
    });
  });
