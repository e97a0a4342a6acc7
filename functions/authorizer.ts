import { authorizerRoot } from '#shared/composition/authorizer';
import { fromEnvironment } from '#shared/composition/root';

/** Lambda entry: the authorizer function, configured once, at cold start, from its environment. */
export const handler = fromEnvironment(authorizerRoot);
