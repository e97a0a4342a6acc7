import { createHash } from 'node:crypto';
import { type NewPet, PET_FIELD_NAMES, type Pet, type PetFieldName, type PetId } from '#shared/domain/pet';

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

/**
 * The fields a fingerprint lists by position, `null` for one left out: the pet's fields when the first
 * records were kept. Fixed, so a record made before a field was added still matches its retry (records
 * live 24 hours, across deployments).
 */
const POSITIONAL_FIELDS = ['name', 'categoryId', 'status'] as const satisfies readonly PetFieldName[];

/** Every later field, by name, only when sent: a request without them has the fingerprint it had before. */
const NAMED_FIELDS = PET_FIELD_NAMES.filter(
  (field) => !(POSITIONAL_FIELDS as readonly PetFieldName[]).includes(field),
);

/**
 * What a create asked for, as a digest of the NewPet (not its JSON): every field, an omitted one told apart
 * from one sent with its default. `[name, categoryId, status | null]`, then `{ <field>: value }` of the
 * later fields sent, if any.
 */
export const fingerprintOf = (newPet: NewPet): string => {
  const fields = newPet as Readonly<Record<PetFieldName, unknown>>;
  const named = Object.fromEntries(
    NAMED_FIELDS.filter((field) => fields[field] !== undefined).map((field) => [field, fields[field]]),
  );
  const values = [
    ...POSITIONAL_FIELDS.map((field) => fields[field] ?? null),
    ...(Object.keys(named).length > 0 ? [named] : []),
  ];
  return createHash('sha256').update(JSON.stringify(values)).digest('base64url');
};
