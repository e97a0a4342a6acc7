import { listPetsRoot } from '#functions/list-pets/root';
import { fromEnvironment } from '#shared/composition/root';

/** Lambda entry: the listPets function, configured once, at cold start, from its environment. */
export const handler = fromEnvironment(listPetsRoot);
