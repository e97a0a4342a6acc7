import type { ExpectedVersions } from '#shared/domain/pet';

/**
 * The versions a change or removal may apply to, checked in its one conditional write so that no other
 * write slips in between: one of `versions` (any when undefined; none for `[]`), and none of `except`.
 */
export interface VersionCondition {
  readonly versions: ExpectedVersions;
  /** @default none */
  readonly except?: readonly number[];
}

/** A change or removal of the pet as it is, whatever its version. */
export const ANY_VERSION: VersionCondition = { versions: undefined };
