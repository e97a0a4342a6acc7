import { type Plan, type Plans, planOf, type QuotaPeriod } from '#shared/fair-use/plans';
import type { GatewayResponseType } from '#shared/http/gateway-behaviour';

/** API Gateway's usage plans, locally: per key a token bucket and a UTC day or month quota; refusals cost none. */

export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    readonly capacity: number,
    readonly refillPerSecond: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.updatedAt = now;
  }

  available(now: number): number {
    const elapsedSeconds = Math.max(0, now - this.updatedAt) / 1_000;
    this.tokens = Math.min(this.capacity, this.tokens + elapsedSeconds * this.refillPerSecond);
    this.updatedAt = Math.max(this.updatedAt, now);
    return this.tokens;
  }

  take(now: number): boolean {
    if (this.available(now) < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export const quotaWindow = (period: QuotaPeriod, now: number): { start: number; end: number } => {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (period === 'MONTH') return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
  const day = date.getUTCDate();
  return { start: Date.UTC(year, month, day), end: Date.UTC(year, month, day + 1) };
};

interface KeyState {
  readonly plan: string;
  readonly bucket: TokenBucket;
  windowEnd: number;
  used: number;
}

export type Admission =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly refusal: GatewayResponseType };

export interface Caller {
  readonly keyId: string;
  readonly plan: string;
}

/** Each key's plan, enforced: what the local gateway asks before it calls a function (or the 405 mock). */
export class FairUse {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly plans: Plans,
    private readonly now: () => number = Date.now,
  ) {}

  admit(caller: Caller): Admission {
    const now = this.now();
    const state = this.stateOf(caller, now);
    if (now >= state.windowEnd) {
      state.windowEnd = quotaWindow(this.planNamed(caller.plan).quota.period, now).end;
      state.used = 0;
    }
    if (state.used >= this.planNamed(caller.plan).quota.limit)
      return { admitted: false, refusal: 'QUOTA_EXCEEDED' };
    if (!state.bucket.take(now)) return { admitted: false, refusal: 'THROTTLED' };
    state.used += 1;
    return { admitted: true };
  }

  private planNamed(name: string): Plan {
    const found = planOf(this.plans, name);
    // The authorizer puts keys on these same plans only; another name is a wiring mistake.
    if (!found) throw new Error(`The local gateway has no plan "${name}"`);
    return found.plan;
  }

  /** The key's state on its plan; a key moved to another plan starts afresh on it, as with a new usage plan. */
  private stateOf(caller: Caller, now: number): KeyState {
    const known = this.keys.get(caller.keyId);
    if (known && known.plan === caller.plan) return known;
    const plan = this.planNamed(caller.plan);
    const state: KeyState = {
      plan: caller.plan,
      bucket: new TokenBucket(plan.burstLimit, plan.rateLimit, now),
      windowEnd: quotaWindow(plan.quota.period, now).end,
      used: 0,
    };
    this.keys.set(caller.keyId, state);
    return state;
  }
}

export const callerOf = (authorization: {
  readonly principalId: string;
  readonly context?: Readonly<Record<string, unknown>> | null;
}): Caller => {
  const plan = authorization.context?.plan;
  // The authorizer names every accepted key's plan; an answer without one is a wiring mistake.
  if (typeof plan !== 'string') throw new Error('The authorizer named no plan for an accepted key');
  return { keyId: authorization.principalId, plan };
};
