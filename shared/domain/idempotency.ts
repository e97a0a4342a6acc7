import { createHash } from 'node:crypto';
import type { NewPet, Pet, PetId } from '#shared/domain/pet';

/** A key's record is made first and holds the reserved id, so whichever request writes the pet uses it. */

/** A client's key for one create, scoped to its caller (the API key's id), so two never collide. */
export interface IdempotencyKey {
  readonly caller: string;
  readonly key: string;
}

/** Who works on a record, and until when (epoch ms): past `until`, a retry may take it over. */
export interface Lock {
  /** Unique to one request: how a request knows a record as its own. */
  readonly token: string;
  readonly until: number;
}

/** A create that is under way, or that failed without knowing whether its pet was stored. */
export interface InProgressRecord {
  readonly state: 'in-progress';
  /** The request it stands for (fingerprintOf), so that a key names one request only. */
  readonly fingerprint: string;
  readonly petId: PetId;
  readonly lock: Lock;
}

/** A create that stored its pet: repeats get this pet. */
export interface CompletedRecord {
  readonly state: 'completed';
  readonly fingerprint: string;
  readonly pet: Pet;
}

export type CreateRecord = InProgressRecord | CompletedRecord;

/** What a create asked for, as a digest of the NewPet (not its JSON); an omitted `status` differs from one sent. */
export const fingerprintOf = (newPet: NewPet): string =>
  createHash('sha256')
    .update(JSON.stringify([newPet.name, newPet.categoryId, newPet.status ?? null]))
    .digest('base64url');
