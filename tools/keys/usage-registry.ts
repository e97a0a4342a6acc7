import type { UsageIdentifier } from '#shared/auth/api-key';

/** A stage's usage identifiers (none locally); every method succeeds when its work is done already. */
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
