import type { Pet } from '#shared/domain/pet';

/**
 * Where a create stores its pet: what the create's service (shared/domain/pet-service.ts) needs
 * of the pets table. The DynamoDB adapter (PetsTable) has it, and translates the SDK's failures
 * into domain errors, so no SDK type crosses this line.
 */
export interface PetRepository {
  /**
   * Stores a new pet under its id, never over another pet (PetIdTakenError). Safe to repeat: when
   * this very pet is already stored (an earlier attempt of the write, applied though its answer
   * was lost), it succeeds.
   */
  create(pet: Pet): Promise<void>;
}
