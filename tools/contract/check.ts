import type { ContractTarget } from './target';

/**
 * One check of the contract suite, and what running it against a target gives: it passed, it
 * failed (it throws), or it does not apply to that target and says why. A check that cannot
 * apply is reported as skipped with its reason, never as a pass that checked nothing.
 */

/** What a check needs of a target beyond a base URL and a key: an origin it allows, a key to spend. */
export type Need = 'allowedOrigin' | 'throttled';

export interface ContractCheck {
  /** What the service does, as a sentence. */
  readonly name: string;
  /** Throws when the service breaks the contract; `notApplicable(reason)` when the target cannot show it. */
  readonly run: (target: ContractTarget) => Promise<void>;
  /** It creates pets (named with smokeName): a read-only run (`npm run smoke -- --read-only`) skips it. */
  readonly creates: boolean;
  readonly needs?: Need;
}

export interface ContractArea {
  readonly area: string;
  readonly checks: readonly ContractCheck[];
}

export const check = (
  name: string,
  run: ContractCheck['run'],
  options: { readonly creates?: boolean; readonly needs?: Need } = {},
): ContractCheck => ({
  name,
  run,
  creates: options.creates ?? false,
  ...(options.needs ? { needs: options.needs } : {}),
});

/** A check that creates pets (named with smokeName): `check(name, run, { creates: true })`. */
export const creating = (name: string, run: ContractCheck['run']): ContractCheck =>
  check(name, run, { creates: true });

/** Thrown by a check that does not apply to the target it runs against; carries the reason. */
export class NotApplicable extends Error {
  override readonly name = 'NotApplicable';
  constructor(readonly reason: string) {
    super(`Does not apply: ${reason}`);
  }
}

/** Ends a check as skipped, saying why it does not apply to this target. */
export const notApplicable = (reason: string): never => {
  throw new NotApplicable(reason);
};

/** Why a read-only run skips a check that creates pets. */
export const READ_ONLY_REASON = 'it creates pets, and this run is read-only';

/** Why the checks of what an allowed origin gets are skipped on a target given no origin. */
export const NO_ORIGIN_REASON =
  'no origin the target allows was given (--origin or SMOKE_ORIGIN); production allows none';

/** Why the throttling check does not run without a key of its own. */
export const NO_THROTTLE_KEY_REASON =
  'no key to spend on it: sending faster than a plan allows spends that key’s rate and some of its quota, so give a key of its own, on a small plan (npm run smoke -- --throttle-key <key>)';

/** Why `check` does not apply to `target` before it runs at all, if it does not. */
export const reasonNotToRun = (candidate: ContractCheck, target: ContractTarget): string | undefined => {
  if (candidate.creates && target.readOnly) return READ_ONLY_REASON;
  if (candidate.needs === 'allowedOrigin' && !target.allowedOrigin) return NO_ORIGIN_REASON;
  if (candidate.needs === 'throttled' && !target.throttled) return NO_THROTTLE_KEY_REASON;
  return undefined;
};

/** How a check ended, short of failing (a failure is thrown, with its reason). */
export type CheckOutcome =
  | { readonly status: 'passed' }
  | { readonly status: 'skipped'; readonly reason: string };

/**
 * Runs a check against a target. Resolves to `passed`, or to `skipped` with the reason the check
 * does not apply to the target; rejects with the failure when the service breaks the contract.
 */
export const runCheck = async (candidate: ContractCheck, target: ContractTarget): Promise<CheckOutcome> => {
  const before = reasonNotToRun(candidate, target);
  if (before !== undefined) return { status: 'skipped', reason: before };
  try {
    await candidate.run(target);
    return { status: 'passed' };
  } catch (error) {
    if (error instanceof NotApplicable) return { status: 'skipped', reason: error.reason };
    throw error;
  }
};
