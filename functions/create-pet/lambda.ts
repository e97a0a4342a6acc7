import { createPetRoot } from '#functions/create-pet/root';
import { fromEnvironment } from '#shared/composition/root';

/** Lambda entry: the createPet function, configured once, at cold start, from its environment. */
export const handler = fromEnvironment(createPetRoot);
