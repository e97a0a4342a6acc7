/** Errors of the domain, in its own terms: only shared/http/error-mapper.ts gives each a status. */

export class PetNotFoundError extends Error {
  override readonly name = 'PetNotFoundError';
  constructor(readonly petId: number) {
    super(`Pet ${petId} does not exist`);
  }
}

/** The pet is at none of the versions the request allows (If-Match), or at one it excludes (If-None-Match). */
export class PetVersionMismatchError extends Error {
  override readonly name = 'PetVersionMismatchError';
  constructor(readonly petId: number) {
    super(`Pet ${petId} is not at a version the request allows`);
  }
}

/** The data store refused or could not serve the request in time (throttling, outage, timeout). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A pet already has the id the sequence handed out (its counter was reset or edited): a fault. */
export class PetIdTakenError extends Error {
  override readonly name = 'PetIdTakenError';
  constructor(
    readonly petId: number,
    options?: { cause?: unknown },
  ) {
    super(`A pet with id ${petId} already exists: the id sequence is behind the table`, options);
  }
}

/** A stored item that is not a valid record of its kind: never served; logged by key, never by content. */
export class InvalidStoredItemError extends Error {
  override readonly name = 'InvalidStoredItemError';
  constructor(
    readonly kind: string,
    readonly key: string,
    readonly problems: readonly string[],
  ) {
    super(`The stored ${kind} ${key} is not valid: ${problems.join('; ')}`);
  }
}

export class IdSpaceExhaustedError extends Error {
  override readonly name = 'IdSpaceExhaustedError';
  constructor() {
    super('No pet ids are left');
  }
}

/** An earlier request with the same idempotency key is still under way: retried, it gets that answer. */
export class IdempotencyKeyInUseError extends Error {
  override readonly name = 'IdempotencyKeyInUseError';
  constructor(options?: { cause?: unknown }) {
    super('An earlier request with this idempotency key is still in progress', options);
  }
}

/** An idempotency key was used before with another body: it names one request only. */
export class IdempotencyKeyReusedError extends Error {
  override readonly name = 'IdempotencyKeyReusedError';
  constructor(options?: { cause?: unknown }) {
    super('This idempotency key was used for another request', options);
  }
}
