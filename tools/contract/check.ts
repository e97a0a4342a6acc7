import type { ContractTarget } from './target';

/** What a check needs of a target beyond a base URL and a key: an origin it allows, a key to spend. */
export type Need = 'allowedOrigin' | 'throttled';

export interface ContractCheck {
  readonly name: string;
  /** Throws when the service breaks the contract. */
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

export const creating = (name: string, run: ContractCheck['run']): ContractCheck =>
  check(name, run, { creates: true });

export const READ_ONLY_REASON = 'it creates pets, and this run is read-only';

export const NO_ORIGIN_REASON =
  'no origin the target allows was given (--origin or SMOKE_ORIGIN); production allows none';

export const NO_THROTTLE_KEY_REASON =
  'no key to spend on it: sending faster than a plan allows spends that key’s rate and some of its quota, so give a key of its own, on a small plan (npm run smoke -- --throttle-key <key>)';

export const reasonNotToRun = (candidate: ContractCheck, target: ContractTarget): string | undefined => {
  if (candidate.creates && target.readOnly) return READ_ONLY_REASON;
  if (candidate.needs === 'allowedOrigin' && !target.allowedOrigin) return NO_ORIGIN_REASON;
  if (candidate.needs === 'throttled' && !target.throttled) return NO_THROTTLE_KEY_REASON;
  return undefined;
};

export type CheckOutcome =
  | { readonly status: 'passed' }
  | { readonly status: 'skipped'; readonly reason: string };

/** Runs a check: one that cannot apply is skipped with its reason, never a pass that checked nothing. */
export const runCheck = async (candidate: ContractCheck, target: ContractTarget): Promise<CheckOutcome> => {
  const before = reasonNotToRun(candidate, target);
  if (before !== undefined) return { status: 'skipped', reason: before };
  await candidate.run(target);
  return { status: 'passed' };
};
