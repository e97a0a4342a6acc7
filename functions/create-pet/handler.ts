import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import { createPet } from '#functions/create-pet/contract';
import type { PetService } from '#shared/domain/pet-service';
import { type FunctionDependencies, httpEndpoint } from '#shared/http/endpoint';
import { idempotentRequests } from '#shared/http/middleware/idempotency';
import { petLocation } from '#shared/http/paths';
import { created } from '#shared/http/responses';

export interface CreatePetDependencies extends FunctionDependencies {
  readonly pets: PetService;
  /** Where the Idempotency-Key records are kept (the DynamoDB adapter's store). */
  readonly idempotencyStore: BasePersistenceLayer;
}

/** The createPet function: adds a pet; 201 with the pet and where to read it; idempotent by key. */
export const createPetHandler = ({ pets, idempotencyStore, ...dependencies }: CreatePetDependencies) =>
  httpEndpoint(
    createPet,
    {
      ...dependencies,
      idempotency: idempotentRequests({
        operationId: createPet.operationId,
        rule: createPet.idempotency,
        store: idempotencyStore,
        logger: dependencies.logger,
      }),
    },
    async ({ body }) => {
      const pet = await pets.create(body);
      dependencies.metrics.countPetCreated();
      return created(pet, { Location: petLocation(pet.id) });
    },
  );
