import { PetNotFoundError } from '#shared/domain/errors';
import {
  DEFAULT_PET_STATUS,
  type ListPetsOptions,
  type NewPet,
  type Pet,
  type PetPage,
} from '#shared/domain/pet';
import type { IdSequence } from '#shared/ports/id-sequence';
import type { PetRepository } from '#shared/ports/pet-repository';

export interface PetServiceDependencies {
  readonly pets: PetRepository;
  /** Needed only to create pets: the read-only functions are built without it. */
  readonly ids?: IdSequence;
}

/** The pet operations, in the domain's terms: no HTTP, no DynamoDB. */
export class PetService {
  private readonly pets: PetRepository;
  private readonly ids: IdSequence | undefined;

  constructor({ pets, ids }: PetServiceDependencies) {
    this.pets = pets;
    this.ids = ids;
  }

  list(options: ListPetsOptions): Promise<PetPage> {
    return this.pets.list(options);
  }

  async create(newPet: NewPet): Promise<Pet> {
    if (!this.ids) throw new Error('PetService was built without an IdSequence: it cannot create pets');
    const pet: Pet = {
      id: await this.ids.next(),
      name: newPet.name,
      categoryId: newPet.categoryId,
      status: newPet.status ?? DEFAULT_PET_STATUS,
    };
    await this.pets.create(pet);
    return pet;
  }

  async get(id: number): Promise<Pet> {
    const pet = await this.pets.get(id);
    if (!pet) throw new PetNotFoundError(id);
    return pet;
  }
}
