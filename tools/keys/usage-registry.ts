import type { UsageIdentifier } from '#shared/auth/api-key';

/**
 * Where a stage's usage identifiers live (API Gateway API keys, tools/keys/api-gateway-registry.ts;
 * locally none). Every method can be repeated: one that finds its work done already succeeds, so
 * an operator can re-run a command that stopped half-way.
 */
export interface UsageRegistry {
  /** Where the identifiers are, for messages: e.g. `API Gateway (PetStore-staging)`. */
  readonly name: string;
  /** A new, enabled usage identifier for the key `keyId`, in no usage plan yet. */
  createIdentifier(keyId: string): Promise<UsageIdentifier>;
  /** Puts the identifier in the usage plan of `plan`. */
  addToPlan(identifierId: string, plan: string): Promise<void>;
  /** Takes the identifier out of the usage plan of `plan`. */
  removeFromPlan(identifierId: string, plan: string): Promise<void>;
  /** Deletes the identifier, and with it its place in any usage plan. */
  deleteIdentifier(identifierId: string): Promise<void>;
  /** A shell command an operator can run to delete the identifier by hand. */
  deleteCommand(identifierId: string): string;
}
