import { fromEnvironment } from '#shared/composition/root';
import { deletePetRoot } from './root';

/** Lambda entry of the test-only operation (the stack's tests point a function at it). */
export const handler = fromEnvironment(deletePetRoot);
