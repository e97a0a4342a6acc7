import type { CreateRecord, IdempotencyKey, InProgressRecord, Lock } from '#shared/domain/idempotency';
import type { Pet } from '#shared/domain/pet';

/**
 * Where the records of idempotent creates are kept, one per caller and key, for a retention
 * period (24 hours) after which the key is free again. Every method is safe to repeat: a write
 * that was applied but whose answer was lost leaves the same record when it is sent again.
 */
export interface IdempotencyStore {
  /**
   * Keeps `record` under `key` unless a record within its retention is there already. Returns
   * what the key holds afterwards: `record`, or the record that was there (which may be `record`
   * itself, written by an earlier attempt of this very call).
   */
  start(key: IdempotencyKey, record: InProgressRecord): Promise<CreateRecord>;
  /**
   * Gives the in-progress record under `key` the lock `to`, if it is still held by `from`
   * (whose time is up). Returns what the key holds afterwards; undefined when it holds nothing.
   */
  takeOver(key: IdempotencyKey, from: Lock, to: Lock): Promise<CreateRecord | undefined>;
  /** Records that the create stored `pet` (whose id is the record's): repeats get it from now on. */
  complete(key: IdempotencyKey, pet: Pet): Promise<void>;
  /**
   * Ends `lock` at once, keeping the record and its reserved id, so that a retry takes over
   * without waiting; does nothing if the lock is no longer the record's.
   */
  release(key: IdempotencyKey, lock: Lock): Promise<void>;
}
