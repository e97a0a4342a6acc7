import { randomUUID } from 'node:crypto';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '#shared/domain/errors';
import {
  type CompletedRecord,
  type CreateRecord,
  fingerprintOf,
  type IdempotencyKey,
  type InProgressRecord,
  type Lock,
} from '#shared/domain/idempotency';
import { createdPet, type NewPet, type Pet } from '#shared/domain/pet';
import type { IdSequence } from '#shared/ports/id-sequence';
import type { IdempotencyStore } from '#shared/ports/idempotency-store';
import type { PetRepository } from '#shared/ports/pet-repository';

/** Where the service reports what went wrong without failing the request. */
export interface ProblemLog {
  error(message: string, attributes: { readonly error: unknown }): void;
}

export interface PetServiceDependencies {
  readonly pets: PetRepository;
  readonly ids: IdSequence;
  /** Needed only for creates with an idempotency key. */
  readonly records?: IdempotencyStore;
  /** How long a create holds its record before a retry may take it over: its deadline. @default 3 s */
  readonly lockMs?: number;
  readonly problems?: ProblemLog;
}

/** A create's answer: the pet, and whether it is the answer of an earlier request with the key. */
export interface CreateOutcome {
  readonly pet: Pet;
  readonly replayed: boolean;
}

const DEFAULT_LOCK_MS = 3_000;

/** createPet's rule: a create is one logical write whatever the network does, and with a key happens once. */
export class PetService {
  private readonly pets: PetRepository;
  private readonly lockMs: number;

  constructor(private readonly deps: PetServiceDependencies) {
    this.pets = deps.pets;
    this.lockMs = deps.lockMs ?? DEFAULT_LOCK_MS;
  }

  /** Adds a pet: without a key, one per call; with a key, once however often the call is repeated. */
  create(newPet: NewPet, key?: IdempotencyKey): Promise<CreateOutcome> {
    return key ? this.createOnce(newPet, key) : this.createNew(newPet);
  }

  private async createNew(newPet: NewPet): Promise<CreateOutcome> {
    const pet = createdPet(await this.nextId(), newPet);
    await this.pets.create(pet);
    return { pet, replayed: false };
  }

  /**
   * A key's create, once: 1. reserve an id and start the key's record, unless a record decides (another
   * request: 422; stored: replayed; under way: 409; given up: taken over); 2. write the pet with that id;
   * 3. complete the record. A failure never deletes the record, so a retry writes the same id.
   */
  private async createOnce(newPet: NewPet, key: IdempotencyKey): Promise<CreateOutcome> {
    const records = this.recordsOrFail();
    const fingerprint = fingerprintOf(newPet);
    const lock: Lock = { token: randomUUID(), until: Date.now() + this.lockMs };
    const started = await records.start(key, {
      state: 'in-progress',
      fingerprint,
      petId: await this.nextId(),
      lock,
    });
    const record = await this.hold(records, key, started, fingerprint, lock);
    if (record.state === 'completed') return { pet: record.pet, replayed: true };

    const pet = createdPet(record.petId, newPet);
    try {
      await this.pets.create(pet);
    } catch (error) {
      await this.quietly('Idempotency record not released', () => records.release(key, lock));
      throw error;
    }
    // Stored: the client gets it even if the record cannot say so yet (a later retry completes it).
    await this.quietly('Idempotency record not completed', () => records.complete(key, pet));
    return { pet, replayed: false };
  }

  /** The record to go on with: one this request holds, or a completed one; refuses the rest. */
  private async hold(
    records: IdempotencyStore,
    key: IdempotencyKey,
    record: CreateRecord,
    fingerprint: string,
    lock: Lock,
  ): Promise<InProgressRecord | CompletedRecord> {
    if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
    if (record.state === 'completed' || record.lock.token === lock.token) return record;
    if (record.lock.until > Date.now()) throw new IdempotencyKeyInUseError();
    // Its request gave up or died: take over its reserved id. Only one retry gets it.
    const taken = await records.takeOver(key, record.lock, lock);
    if (taken?.fingerprint === fingerprint) {
      if (taken.state === 'completed' || taken.lock.token === lock.token) return taken;
    }
    throw new IdempotencyKeyInUseError();
  }

  private nextId(): Promise<number> {
    return this.deps.ids.next();
  }

  private recordsOrFail(): IdempotencyStore {
    if (!this.deps.records)
      throw new Error('PetService was built without an IdempotencyStore: it cannot create pets by key');
    return this.deps.records;
  }

  /** Runs a step whose failure must not change the answer, and reports its failure. */
  private async quietly(problem: string, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.deps.problems?.error(problem, { error });
    }
  }
}
