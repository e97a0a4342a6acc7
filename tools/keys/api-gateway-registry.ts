import { randomBytes } from 'node:crypto';
import {
  type APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetUsagePlanKeyCommand,
  NotFoundException,
  paginateGetUsagePlans,
} from '@aws-sdk/client-api-gateway';
import { usagePlanName } from '#infra/stage-plans';
import type { UsageIdentifier } from '#shared/auth/api-key';
import { UserError } from '#tools/command';
import type { UsageRegistry } from '#tools/keys/usage-registry';

/** The stage's stack is not in this account and region: the user's to fix, said in one sentence. */
export class UsagePlanNotFoundError extends UserError {
  override readonly name = 'UsagePlanNotFoundError';
}

/** Takes API Gateway's "not found" as the work already done. */
const unlessNotFound = (error: unknown): void => {
  if (!(error instanceof NotFoundException)) throw error;
};

/** API keys named `<stack>/<key id>`: meters, not credentials (key source AUTHORIZER ignores `X-API-Key`). */
export class ApiGatewayRegistry implements UsageRegistry {
  readonly name: string;
  private readonly client: APIGatewayClient;
  private readonly stackName: string;
  private readonly region: string | undefined;
  private usagePlanIds: Promise<Map<string, string>> | undefined;

  constructor(options: {
    readonly client: APIGatewayClient;
    readonly stackName: string;
    readonly region?: string;
  }) {
    ({ client: this.client, stackName: this.stackName, region: this.region } = options);
    this.name = `API Gateway (${options.stackName})`;
  }

  async createIdentifier(keyId: string): Promise<UsageIdentifier> {
    const value = randomBytes(32).toString('hex');
    const created = await this.client.send(
      new CreateApiKeyCommand({
        name: `${this.stackName}/${keyId}`,
        description: `Usage identifier of the pet store key ${keyId}: meters it in its plan's usage plan (npm run keys)`,
        enabled: true,
        value,
      }),
    );
    if (!created.id) throw new Error(`API Gateway created an API key for ${keyId} without an id`);
    return { id: created.id, value };
  }

  async addToPlan(identifierId: string, plan: string): Promise<void> {
    const usagePlanId = await this.usagePlanId(plan);
    try {
      await this.client.send(
        new CreateUsagePlanKeyCommand({ usagePlanId, keyId: identifierId, keyType: 'API_KEY' }),
      );
    } catch (error) {
      // A conflict: already in this plan (done) or in another (not done); asked, not read from the message.
      if (!(error instanceof ConflictException)) throw error;
      try {
        await this.client.send(new GetUsagePlanKeyCommand({ usagePlanId, keyId: identifierId }));
      } catch (lookup) {
        throw lookup instanceof NotFoundException ? error : lookup;
      }
    }
  }

  async removeFromPlan(identifierId: string, plan: string): Promise<void> {
    const usagePlanId = await this.usagePlanId(plan);
    // Not in that usage plan (or no longer there): done.
    await this.client
      .send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId: identifierId }))
      .catch(unlessNotFound);
  }

  async deleteIdentifier(identifierId: string): Promise<void> {
    // Gone already: done.
    await this.client.send(new DeleteApiKeyCommand({ apiKey: identifierId })).catch(unlessNotFound);
  }

  deleteCommand(identifierId: string): string {
    return `aws apigateway delete-api-key --api-key ${identifierId}${this.region ? ` --region ${this.region}` : ''}`;
  }

  private async usagePlanId(plan: string): Promise<string> {
    this.usagePlanIds ??= this.listUsagePlans().catch((error: unknown) => {
      this.usagePlanIds = undefined;
      throw error;
    });
    const name = usagePlanName(this.stackName, plan);
    const id = (await this.usagePlanIds).get(name);
    if (!id) {
      throw new UsagePlanNotFoundError(
        `No usage plan ${name} in this account and region: deploy ${this.stackName} first (it creates one per plan of the stage)`,
      );
    }
    return id;
  }

  private async listUsagePlans(): Promise<Map<string, string>> {
    const byName = new Map<string, string>();
    for await (const page of paginateGetUsagePlans({ client: this.client }, {})) {
      for (const usagePlan of page.items ?? []) {
        if (usagePlan.name && usagePlan.id) byName.set(usagePlan.name, usagePlan.id);
      }
    }
    return byName;
  }
}
