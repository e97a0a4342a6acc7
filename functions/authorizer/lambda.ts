import { authorizerRoot } from '#functions/authorizer/root';
import { fromEnvironment } from '#shared/composition/root';

/** Lambda entry: the authorizer function, configured once, at cold start, from its environment. */
export const handler = fromEnvironment(authorizerRoot);
