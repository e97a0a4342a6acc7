import type { UsageIdentifier } from '#shared/auth/api-key';

/**
 * Where a stage's usage identifiers live: API Gateway API keys, each standing for one bearer key
 * in the usage plan of its plan (tools/keys/api-gateway-registry.ts). The keys command keeps it in
 * step with the key records; the local server has no API Gateway, so locally there is no registry
 * and a key's plan lives in its record only.
 *
 * Every method can be repeated: one that finds its work done already (an identifier already in
 * the plan, or already gone) succeeds. That is what lets an operator re-run a command that
 * stopped half-way, and what the command's own clean-up relies on.
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
