import { type ApiKeyRecord, generateApiKey, type UsageIdentifier } from '#shared/auth/api-key';
import { ALL_SCOPES, inScopeOrder, type Scope } from '#shared/auth/scopes';
import { isPlanName, type Plans, planNames } from '#shared/fair-use/plans';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { describe } from '#tools/command';
import type { UsageRegistry } from '#tools/keys/usage-registry';

/** Key changes: usage identifier first, record last, so a key is never usable unmetered; failures undone. */

export class UnknownPlanError extends Error {
  override readonly name = 'UnknownPlanError';
}

/** A change that stopped half-way and could not be undone, and the commands that put it right. */
export class IncompleteChangeError extends Error {
  override readonly name = 'IncompleteChangeError';
  constructor(
    message: string,
    readonly commands: readonly string[],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export type Outcome<T> =
  | { readonly done: true; readonly value: T }
  | { readonly done: false; readonly reason: string };

export interface KeysStores {
  readonly apiKeys: ApiKeyRepository;
  readonly registry: UsageRegistry | undefined;
  readonly plans: Plans;
}

export interface KeyAdminOptions extends KeysStores {
  readonly rerun: (args: string) => string;
  readonly now?: () => Date;
}

export class KeyAdmin {
  constructor(private readonly options: KeyAdminOptions) {}

  private readonly now = () => this.options.now?.() ?? new Date();

  /** A new key on `plan` holding `scopes` (every scope unless given), metered first, then its record stored. */
  async create(
    name: string,
    plan: string = this.options.plans.defaultPlan,
    scopes: readonly Scope[] = ALL_SCOPES,
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    this.checkPlan(plan);
    const { key, record } = generateApiKey(name, this.now());
    const usage = await this.meter(record.keyId, plan);
    const stored: ApiKeyRecord = {
      ...record,
      plan,
      scopes: inScopeOrder(scopes),
      ...(usage ? { usage } : {}),
    };
    try {
      await this.options.apiKeys.put(stored);
    } catch (error) {
      if (usage)
        await this.undo(`the record of ${record.keyId} was not stored (${describe(error)})`, error, usage);
      throw error;
    }
    return { key, record: stored };
  }

  /** Record first (refused within the cache time), then the identifier (refused at once); repeatable. */
  async revoke(keyId: string): Promise<Outcome<ApiKeyRecord>> {
    const record = await this.options.apiKeys.findById(keyId);
    if (!record) return { done: false, reason: `No key ${keyId}` };
    await this.options.apiKeys.revoke(keyId, this.now().toISOString());
    if (this.options.registry && record.usage) {
      try {
        await this.options.registry.deleteIdentifier(record.usage.id);
      } catch (error) {
        throw new IncompleteChangeError(
          `${keyId} is revoked (the authorizer refuses it within its cache time), but its usage identifier ${record.usage.id} could not be deleted from ${this.options.registry.name} (${describe(error)}); run again:`,
          [this.options.rerun(`revoke ${keyId}`)],
          { cause: error },
        );
      }
    }
    return { done: true, value: (await this.options.apiKeys.findById(keyId)) ?? record };
  }

  /** The identifier out of every other usage plan, into the new one's, then the record; repeatable. */
  async move(keyId: string, plan: string): Promise<Outcome<ApiKeyRecord>> {
    this.checkPlan(plan);
    const record = await this.options.apiKeys.findById(keyId);
    if (!record) return { done: false, reason: `No key ${keyId}` };
    if (record.revokedAt) return { done: false, reason: `${keyId} is revoked: it has no plan to change` };
    if (this.options.registry && record.usage)
      await this.moveIdentifier(record, record.usage, record.plan ?? this.options.plans.defaultPlan, plan);
    else await this.assign(record, plan);
    return { done: true, value: (await this.options.apiKeys.findById(keyId)) ?? record };
  }

  private async moveIdentifier(
    record: ApiKeyRecord,
    usage: UsageIdentifier,
    from: string,
    to: string,
  ): Promise<void> {
    try {
      await this.place(usage.id, to);
      await this.assign(record, to);
    } catch (error) {
      try {
        await this.place(usage.id, from);
      } catch (undoError) {
        throw new IncompleteChangeError(
          `Moving ${record.keyId} from plan ${from} to ${to} failed (${describe(error)}) and could not be undone (${describe(undoError)}): API Gateway may refuse the key until one of these has run, to finish the move or to go back:`,
          [
            this.options.rerun(`move ${record.keyId} --plan ${to}`),
            this.options.rerun(`move ${record.keyId} --plan ${from}`),
          ],
          { cause: error },
        );
      }
      throw error;
    }
  }

  private async place(identifierId: string, plan: string): Promise<void> {
    const registry = this.options.registry as UsageRegistry;
    for (const other of planNames(this.options.plans).filter((name) => name !== plan))
      await registry.removeFromPlan(identifierId, other);
    await registry.addToPlan(identifierId, plan);
  }

  private async assign(record: ApiKeyRecord, plan: string): Promise<void> {
    if (!(await this.options.apiKeys.assignPlan(record.keyHash, plan)))
      throw new Error(`${record.keyId} was deleted while its plan was being changed`);
  }

  private async meter(keyId: string, plan: string): Promise<UsageIdentifier | undefined> {
    if (!this.options.registry) return undefined;
    const usage = await this.options.registry.createIdentifier(keyId);
    try {
      await this.options.registry.addToPlan(usage.id, plan);
    } catch (error) {
      await this.undo(
        `${keyId}'s usage identifier could not be put in plan ${plan} (${describe(error)})`,
        error,
        usage,
      );
      throw error;
    }
    return usage;
  }

  private async undo(what: string, cause: unknown, usage: UsageIdentifier): Promise<void> {
    const registry = this.options.registry as UsageRegistry;
    try {
      await registry.deleteIdentifier(usage.id);
    } catch (error) {
      throw new IncompleteChangeError(
        `${what}; its usage identifier ${usage.id} in ${registry.name} could not be deleted either (${describe(error)}). No key was made or changed; delete the identifier with:`,
        [registry.deleteCommand(usage.id)],
        { cause: cause ?? error },
      );
    }
  }

  private checkPlan(plan: string): void {
    if (!isPlanName(this.options.plans, plan))
      throw new UnknownPlanError(
        `Plan "${plan}" is not one of this stage's: ${planNames(this.options.plans).join(', ')}`,
      );
  }
}
