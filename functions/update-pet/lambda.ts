import { updatePetRoot } from '#functions/update-pet/root';
import { fromEnvironment } from '#shared/composition/root';

/** Lambda entry: the updatePet function, configured once, at cold start, from its environment. */
export const handler = fromEnvironment(updatePetRoot);
