import type { Pet } from '#shared/domain/pet';

/** What the create's service needs of the pets table (PetsTable); no SDK type crosses this line. */
export interface PetRepository {
  /** Stores a new pet, never over another (PetIdTakenError); meeting this very pet stored is a success. */
  create(pet: Pet): Promise<void>;
}
