import type { CreateRecord, IdempotencyKey, InProgressRecord, Lock } from '#shared/domain/idempotency';
import type { Pet } from '#shared/domain/pet';

/** The records of idempotent creates, one per caller and key, for a retention period. Every method is safe to repeat. */
export interface IdempotencyStore {
  /** Keeps `record` under `key` unless a record within its retention is there; returns what the key holds. */
  start(key: IdempotencyKey, record: InProgressRecord): Promise<CreateRecord>;
  /** Gives the in-progress record the lock `to` if `from` (expired) still holds it; returns what the key holds. */
  takeOver(key: IdempotencyKey, from: Lock, to: Lock): Promise<CreateRecord | undefined>;
  /** Records that the create stored `pet`: repeats get it from now on. */
  complete(key: IdempotencyKey, pet: Pet): Promise<void>;
  /** Ends `lock` at once (if still the record's), keeping the record, so a retry takes over without waiting. */
  release(key: IdempotencyKey, lock: Lock): Promise<void>;
}
