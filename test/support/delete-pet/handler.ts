import { type FunctionDependencies, httpEndpoint } from '#shared/http/endpoint';
import { noContent } from '#shared/http/responses';
import { deletePet } from './contract';

export interface DeletePetDependencies extends FunctionDependencies {
  /** Removes the pet; PetNotFoundError when there is none. */
  readonly remove: (id: number) => Promise<void>;
}

/** The test-only deletePet function: 204, no body. */
export const deletePetHandler = ({ remove, ...dependencies }: DeletePetDependencies) =>
  httpEndpoint(deletePet, dependencies, async ({ path }) => {
    await remove(path.petId);
    return noContent();
  });
