import { createHash } from 'node:crypto';
import type { NewPet, Pet, PetId } from '#shared/domain/pet';

/**
 * What an idempotent create keeps about itself, in the domain's terms. The record of a key is
 * made before anything else and holds the id reserved for the pet, so that whichever request ends
 * up writing the pet (the first, or a retry that takes over after it failed) writes that one.
 */

/** A client's key for one create: keys are the caller's own, so two callers never collide. */
export interface IdempotencyKey {
  /** Who sent it: the API key's id, as the authorizer named it. */
  readonly caller: string;
  /** The `Idempotency-Key` header. */
  readonly key: string;
}

/** Who works on a record, and until when. Past `until`, a retry may take the record over. */
export interface Lock {
  /** Unique to one request: how a request knows a record as its own. */
  readonly token: string;
  /** Epoch ms. */
  readonly until: number;
}

/** A create that is under way, or that failed without knowing whether its pet was stored. */
export interface InProgressRecord {
  readonly state: 'in-progress';
  /** The request it stands for (fingerprintOf), so that a key names one request only. */
  readonly fingerprint: string;
  /** The id reserved for the pet, before the pet is written: every retry writes this one. */
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

/**
 * What a create asked for, as a short digest: the same NewPet however its JSON was spaced or
 * ordered gives the same fingerprint; an omitted `status` is not the same as one sent.
 */
export const fingerprintOf = (newPet: NewPet): string =>
  createHash('sha256')
    .update(JSON.stringify([newPet.name, newPet.categoryId, newPet.status ?? null]))
    .digest('base64url');
