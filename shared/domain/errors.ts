/**
 * Errors of the domain. They say what went wrong in the service's own terms; only the HTTP layer
 * (shared/http/error-mapper.ts) decides which status code each one becomes.
 */

export class PetNotFoundError extends Error {
  override readonly name = 'PetNotFoundError';
  constructor(readonly petId: number) {
    super(`Pet ${petId} does not exist`);
  }
}

/**
 * The pet is not at a version the request's precondition (`If-Match`) names: someone changed it
 * since the client read it. Nothing was changed.
 */
export class PetVersionMismatchError extends Error {
  override readonly name = 'PetVersionMismatchError';
  constructor(readonly petId: number) {
    super(`Pet ${petId} has changed since the version the request names`);
  }
}

/** The data store refused or could not serve the request in time (throttling, outage, timeout). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A pet already has the id the sequence handed out: the sequence and the table disagree, a fault
 * of the service (its counter was reset or edited). Nothing is overwritten.
 */
export class PetIdTakenError extends Error {
  override readonly name = 'PetIdTakenError';
  constructor(
    readonly petId: number,
    options?: { cause?: unknown },
  ) {
    super(`A pet with id ${petId} already exists: the id sequence is behind the table`, options);
  }
}

/**
 * The data store returned an item that is not a valid record of its kind (a pet with no name, an
 * unknown status …): written by something other than this service, or by a bug. It is never
 * served; the request fails as a fault of the service, logged with the item's key and what is
 * wrong, never with its content.
 */
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

/** The id sequence is exhausted: every id up to 2^53−1 has been handed out. */
export class IdSpaceExhaustedError extends Error {
  override readonly name = 'IdSpaceExhaustedError';
  constructor() {
    super('No pet ids are left');
  }
}

/**
 * A request carrying an idempotency key is still being processed by an earlier request with the
 * same key: the caller should retry shortly and will then get that request's answer.
 */
export class IdempotencyKeyInUseError extends Error {
  override readonly name = 'IdempotencyKeyInUseError';
  constructor(options?: { cause?: unknown }) {
    super('An earlier request with this idempotency key is still in progress', options);
  }
}

/** An idempotency key was used before for another request (another body): it names one request only. */
export class IdempotencyKeyReusedError extends Error {
  override readonly name = 'IdempotencyKeyReusedError';
  constructor(options?: { cause?: unknown }) {
    super('This idempotency key was used for another request', options);
  }
}
