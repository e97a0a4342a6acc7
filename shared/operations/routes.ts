import type { HttpMethod, Operation } from '#shared/operations/operation';

/** Resource paths, each once, in the order the operations list them. */
export const resourcePathsOf = (operations: readonly Pick<Operation, 'path'>[]): string[] => [
  ...new Set(operations.map((operation) => operation.path)),
];

/** Methods a resource path answers; any other method gets 405 with this list in `Allow`. */
export const allowedMethodsIn = (
  operations: readonly Pick<Operation, 'path' | 'method'>[],
  path: string,
): HttpMethod[] =>
  operations.filter((operation) => operation.path === path).map((operation) => operation.method);

/** RFC 9110 §9.2.1's safe methods: every other method of an operation writes. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Writes, so takes the stage's `writeThrottling`. */
export const writesData = (operation: Pick<Operation, 'method'>): boolean =>
  !SAFE_METHODS.has(operation.method);
