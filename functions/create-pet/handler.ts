import { createPet } from '#functions/create-pet/contract';
import { FIRST_VERSION } from '#shared/domain/pet';
import type { PetService } from '#shared/domain/pet-service';
import { etagOf } from '#shared/http/conditional';
import type { FunctionDependencies } from '#shared/http/endpoint';
import { IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyOf } from '#shared/http/idempotency-headers';
import { jsonEndpoint } from '#shared/http/middleware/json-body';
import { petLocation } from '#shared/http/paths';
import { created } from '#shared/http/responses';
import type { PetMetrics } from '#shared/observability/metrics';

export interface CreatePetDependencies extends FunctionDependencies {
  /** Built with an IdSequence and an IdempotencyStore. */
  readonly pets: PetService;
  readonly metrics: PetMetrics;
}

/**
 * The createPet function: adds a pet; 201 with the pet and where to read it. With an
 * Idempotency-Key, once: a repeat gets the first pet, marked `Idempotent-Replayed: true`.
 */
export const createPetHandler = ({ pets, metrics, ...dependencies }: CreatePetDependencies) =>
  jsonEndpoint(createPet, dependencies, async ({ body, headers }, event) => {
    const { pet, replayed } = await pets.create(body, idempotencyKeyOf(event, headers['idempotency-key']));
    if (!replayed) metrics.countPetCreated();
    // A new pet's first version; a replay's too, as the first answer had it.
    const location = { Location: petLocation(pet.id), ETag: etagOf(FIRST_VERSION) };
    return created(pet, replayed ? { ...location, [IDEMPOTENT_REPLAYED_HEADER]: 'true' } : location);
  });
