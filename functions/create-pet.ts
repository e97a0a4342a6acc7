import { createPetRoot } from '#shared/composition/create-pet';
import { fromEnvironment } from '#shared/composition/root';

/** Lambda entry: the createPet function, configured once, at cold start, from its environment. */
export const handler = fromEnvironment(createPetRoot);
