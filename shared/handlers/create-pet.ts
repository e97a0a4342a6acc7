import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { PetService } from '#shared/domain/pet-service';
import { httpEndpoint } from '#shared/http/endpoint';
import { idempotentRequests } from '#shared/http/middleware/idempotency';
import { petLocation } from '#shared/http/paths';
import { created } from '#shared/http/responses';
import type { Observability } from '#shared/observability/observability';
import { createPet } from '#shared/operations/create-pet';

export interface CreatePetDependencies extends Observability {
  readonly pets: PetService;
  /** Where the Idempotency-Key records are kept (the DynamoDB adapter's store). */
  readonly idempotencyStore: BasePersistenceLayer;
}

/** The createPet function: adds a pet; 201 with the pet and where to read it; idempotent by key. */
export const createPetHandler = ({ pets, idempotencyStore, ...observability }: CreatePetDependencies) =>
  httpEndpoint(
    createPet,
    {
      ...observability,
      idempotency: idempotentRequests({
        operationId: createPet.operationId,
        rule: createPet.idempotency,
        store: idempotencyStore,
        logger: observability.logger,
      }),
    },
    async ({ body }) => {
      const pet = await pets.create(body);
      observability.metrics.countPetCreated();
      return created(pet, { Location: petLocation(pet.id) });
    },
  );
