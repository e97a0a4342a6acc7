import { getPetRoot } from '#functions/get-pet/root';
import { fromEnvironment } from '#shared/composition/root';

/** Lambda entry: the getPet function, configured once, at cold start, from its environment. */
export const handler = fromEnvironment(getPetRoot);
