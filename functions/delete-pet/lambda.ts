import { deletePetRoot } from '#functions/delete-pet/root';
import { fromEnvironment } from '#shared/composition/root';

/** Lambda entry: the deletePet function, configured once, at cold start, from its environment. */
export const handler = fromEnvironment(deletePetRoot);
