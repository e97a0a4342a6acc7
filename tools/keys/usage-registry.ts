import type { UsageIdentifier } from '#shared/auth/api-key';

/**
 * Where a stage's usage identifiers live (API Gateway API keys, tools/keys/api-gateway-registry.ts;
 * locally none). Every method can be repeated: one that finds its work done already succeeds, so
 * an operator can re-run a command that stopped half-way.
 */
export interface UsageRegistry {
  /** For messages: e.g. `API Gateway (PetStore-staging)`. */
  readonly name: string;
  /** Enabled, in no usage plan yet. */
  createIdentifier(keyId: string): Promise<UsageIdentifier>;
  addToPlan(identifierId: string, plan: string): Promise<void>;
  removeFromPlan(identifierId: string, plan: string): Promise<void>;
  deleteIdentifier(identifierId: string): Promise<void>;
  /** A shell command that deletes the identifier by hand. */
  deleteCommand(identifierId: string): string;
}
