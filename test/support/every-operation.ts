import { CONTRACTS } from '#functions/operations';

/** The same handler for every operation of OPERATIONS, by operation id: for tests of the gateway alone. */
export const everyOperation = <H>(handler: H): Record<string, H> =>
  Object.fromEntries(CONTRACTS.map((operation) => [operation.operationId, handler]));
