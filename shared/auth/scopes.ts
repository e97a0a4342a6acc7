/**
 * What an API key may do: scopes named as the canonical OpenAPI pet store names its
 * `petstore_auth` scopes. Each operation needs one (its contract's `scope`, else its method's:
 * shared/operations/routes.ts); a key holds a set of them.
 */
export const SCOPES = {
  'read:pets': 'list and read pets',
  'write:pets': 'add, change and remove pets',
} as const;

export type Scope = keyof typeof SCOPES;

export const ALL_SCOPES = Object.keys(SCOPES) as readonly Scope[];

export const isScope = (value: string): value is Scope => Object.hasOwn(SCOPES, value);

/** The scope of the safe methods (RFC 9110 §9.2.1), and the scope of every other method. */
export const READ_SCOPE = 'read:pets' satisfies Scope;
export const WRITE_SCOPE = 'write:pets' satisfies Scope;

/** How scopes travel in the authorizer's context and the logs: space-separated, as OAuth 2.0 writes `scope`. */
export const scopeList = (scopes: readonly string[]): string => scopes.join(' ');

/** The scopes of a key, in the order SCOPES declares them, each once. */
export const inScopeOrder = (scopes: Iterable<Scope>): Scope[] => {
  const held = new Set(scopes);
  return ALL_SCOPES.filter((scope) => held.has(scope));
};

/**
 * Each scope's method resources, as a policy names a method ARN after its stage (`GET/pets/*`): what
 * the authorizer allows a key holding the scope (derived from the operations: shared/operations/routes.ts).
 */
export type ScopeResources = Readonly<Record<Scope, readonly string[]>>;

const METHOD_RESOURCE = /^[A-Z]+\/[A-Za-z0-9._~*/-]*$/;

export class ScopeResourcesError extends Error {
  override readonly name = 'ScopeResourcesError';
}

/**
 * `value` as ScopeResources: every scope and no other, each with its method resources; anything else a
 * ScopeResourcesError naming the first problem. By hand, as plans are: the authorizer's bundle has no valibot.
 */
export const checkScopeResources = (value: unknown): ScopeResources => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ScopeResourcesError(
      `must be an object of method resources by scope (${ALL_SCOPES.join(', ')})`,
    );
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).find((name) => !isScope(name));
  if (unknown !== undefined)
    throw new ScopeResourcesError(`"${unknown}" is not a scope: the scopes are ${ALL_SCOPES.join(', ')}`);
  for (const scope of ALL_SCOPES) {
    const resources = record[scope];
    if (
      !Array.isArray(resources) ||
      !resources.every((resource) => typeof resource === 'string' && METHOD_RESOURCE.test(resource))
    )
      throw new ScopeResourcesError(`${scope} must be a list of method resources such as "GET/pets/*"`);
  }
  return record as ScopeResources;
};
