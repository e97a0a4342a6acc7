import type { ContractTarget } from './target';

/**
 * One check of the contract suite, and what running it against a target gives: it passed, it
 * failed (it throws), or it does not apply to that target and says why. A check that cannot
 * apply is reported as skipped with its reason, never as a pass that checked nothing.
 */

/** One check of the suite: a name that says what the service does, and the code that shows it. */
export interface ContractCheck {
  readonly name: string;
  /** Throws when the service breaks the contract; `notApplicable(reason)` when the target cannot show it. */
  readonly run: (target: ContractTarget) => Promise<void>;
  /** It creates pets (named SMOKE_PREFIX…): a read-only run (`npm run smoke -- --read-only`) skips it. */
  readonly creates: boolean;
}

export interface CheckOptions {
  readonly creates?: boolean;
}

export interface ContractArea {
  readonly area: string;
  readonly checks: readonly ContractCheck[];
}

export const check = (
  name: string,
  run: ContractCheck['run'],
  options: CheckOptions = {},
): ContractCheck => ({ name, run, creates: options.creates ?? false });

/** A check that creates pets (named with smokeName): `check(name, run, { creates: true })`. */
export const creating = (name: string, run: ContractCheck['run']): ContractCheck =>
  check(name, run, { creates: true });

/** One check per case, named by `name` from the case (the `it.each` of the suite). */
export const eachCase = <const T>(
  cases: readonly T[],
  name: (value: T) => string,
  run: (target: ContractTarget, value: T) => Promise<void>,
  options: CheckOptions = {},
): ContractCheck[] => cases.map((value) => check(name(value), (target) => run(target, value), options));

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

/** Why `check` does not apply to `target` before it runs at all, if it does not. */
export const reasonNotToRun = (candidate: ContractCheck, target: ContractTarget): string | undefined =>
  candidate.creates && target.readOnly ? READ_ONLY_REASON : undefined;

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
