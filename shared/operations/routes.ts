import { ALL_SCOPES, READ_SCOPE, type Scope, type ScopeResources, WRITE_SCOPE } from '#shared/auth/scopes';
import { HTTP_METHODS, type HttpMethod, type Operation } from '#shared/operations/operation';

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

/** A method's scope, unless its operation declares another: the safe methods read, the others write. */
export const methodScope = (method: string): Scope => (SAFE_METHODS.has(method) ? READ_SCOPE : WRITE_SCOPE);

/** The scope a key needs to call `operation`: the one its contract declares, else its method's. */
export const scopeOf = (operation: Pick<Operation, 'method' | 'scope'>): Scope =>
  operation.scope ?? methodScope(operation.method);

/**
 * The methods API Gateway calls the authorizer for on a resource: its operations', and the others its
 * `ANY` mock answers 405 (API Gateway's methods, "Method" in its API reference: GET, POST, PUT, PATCH,
 * DELETE, HEAD, OPTIONS; OPTIONS is the preflight's, asked without a key).
 */
export const AUTHORIZED_METHODS = [...HTTP_METHODS, 'HEAD'] as const;

/** A method of a resource behind the authorizer, and the scope a key needs for it. */
export interface ScopedMethod {
  readonly method: (typeof AUTHORIZED_METHODS)[number];
  readonly path: string;
  readonly scope: Scope;
}

/** Every method behind the authorizer: an operation needs its scope; a 405 of the `ANY` mock, its method's. */
export const scopedMethods = (operations: readonly Pick<Operation, 'path' | 'method' | 'scope'>[]) =>
  resourcePathsOf(operations).flatMap((path) =>
    AUTHORIZED_METHODS.map((method): ScopedMethod => {
      const operation = operations.find(
        (candidate) => candidate.path === path && candidate.method === method,
      );
      return { method, path, scope: operation ? scopeOf(operation) : methodScope(method) };
    }),
  );

/**
 * A method ARN's part after the stage, as a policy names it (`GET/pets/*`): a path parameter stands for
 * any value ("Control access for invoking an API": `…/stage/METHOD_HTTP_VERB/Resource-path`).
 */
export const methodResource = ({ method, path }: Pick<ScopedMethod, 'method' | 'path'>): string =>
  `${method}${path.replace(/\{[^}]+\}/g, '*')}`;

/** Each scope's method resources (`GET/pets`, …): what the authorizer allows a key holding it. */
export const scopeResourcesOf = (
  operations: readonly Pick<Operation, 'path' | 'method' | 'scope'>[],
): ScopeResources => {
  const resources = Object.fromEntries(ALL_SCOPES.map((scope) => [scope, [] as string[]])) as Record<
    Scope,
    string[]
  >;
  for (const scoped of scopedMethods(operations)) resources[scoped.scope].push(methodResource(scoped));
  return resources;
};
