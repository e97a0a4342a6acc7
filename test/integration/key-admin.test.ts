import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_RESOURCES } from '#functions/operations';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import type { UsageIdentifier } from '#shared/auth/api-key';
import { authorize } from '#shared/auth/authorize';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';
import { IncompleteChangeError, KeyAdmin, UnknownPlanError } from '#tools/keys/key-admin';
import { main } from '#tools/keys/keys';
import type { UsageRegistry } from '#tools/keys/usage-registry';
import { TEST_PLANS } from '../support/plans';
import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';

/**
 * The keys command's two stores kept in step: the key records on a real DynamoDB Local, and the
 * usage identifiers in a registry that stands in for API Gateway. No API Gateway can run here, so
 * the registry is an in-memory double that keeps usage plans as API Gateway does (an identifier in
 * one usage plan of the stage at most) and fails on demand; the record store fails for real (a
 * table that does not exist).
 */

type Step = 'create' | 'add' | 'remove' | 'delete';

class FailingRegistry implements UsageRegistry {
  readonly name = 'API Gateway (test)';
  /** Identifier id → the plan whose usage plan holds it, or null for none. */
  readonly identifiers = new Map<string, string | null>();
  private readonly failing = new Map<Step, number>();
  private made = 0;

  /** The next `times` calls of `step` fail. */
  failNext(step: Step, times = 1): this {
    this.failing.set(step, times);
    return this;
  }

  private maybeFail(step: Step): void {
    const left = this.failing.get(step) ?? 0;
    if (left > 0) {
      this.failing.set(step, left - 1);
      throw new Error(`API Gateway failed: ${step}`);
    }
  }

  async createIdentifier(keyId: string): Promise<UsageIdentifier> {
    this.maybeFail('create');
    this.made += 1;
    const id = `id${this.made}-${keyId}`;
    this.identifiers.set(id, null);
    return { id, value: `value${this.made}`.padEnd(24, '0') };
  }

  async addToPlan(identifierId: string, plan: string): Promise<void> {
    this.maybeFail('add');
    const current = this.identifiers.get(identifierId);
    if (current === undefined) throw new Error(`No identifier ${identifierId}`);
    if (current !== null && current !== plan)
      throw new Error(`${identifierId} is in usage plan ${current} of the stage`);
    this.identifiers.set(identifierId, plan);
  }

  async removeFromPlan(identifierId: string, plan: string): Promise<void> {
    this.maybeFail('remove');
    if (this.identifiers.get(identifierId) === plan) this.identifiers.set(identifierId, null);
  }

  async deleteIdentifier(identifierId: string): Promise<void> {
    this.maybeFail('delete');
    this.identifiers.delete(identifierId);
  }

  deleteCommand(identifierId: string): string {
    return `aws apigateway delete-api-key --api-key ${identifierId}`;
  }
}

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/GET/pets';
const rerun = (args: string) => `npm run -s keys -- ${args} --table keys`;

let tables: TestTables;
let apiKeys: ApiKeyRepository;
beforeAll(async () => {
  tables = await createTestTables('key-admin');
  apiKeys = apiKeysOf(tables);
});

const adminWith = (registry: UsageRegistry | undefined, store: ApiKeyRepository = apiKeys) =>
  new KeyAdmin({ apiKeys: store, registry, plans: TEST_PLANS, rerun });

/** A record store whose every call fails for real: its table does not exist. */
const missingTable = () =>
  new DynamoDbApiKeyRepository({
    client: createDocumentClient({ endpoint: tables.endpoint }),
    apiKeysTable: 'no-such-table',
  });

const failureOf = async (promise: Promise<unknown>): Promise<Error> => {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('Expected a failure');
};

describe('creating a key', () => {
  it('meters it in its plan before its record makes it usable, and the authorizer hands API Gateway its identifier', async () => {
    const registry = new FailingRegistry();

    const { key, record } = await adminWith(registry).create('metered', 'tight');

    expect(record.plan).toBe('tight');
    expect(registry.identifiers.get(record.usage?.id ?? '')).toBe('tight');
    expect(await apiKeys.findByHash(record.keyHash)).toEqual(record);
    const allowed = await authorize(apiKeys, `Bearer ${key}`, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES);
    expect(allowed.usageIdentifierKey).toBe(record.usage?.value);
    expect(allowed.context.plan).toBe('tight');
  });

  it('puts a key on the default plan when none is asked for', async () => {
    const { record } = await adminWith(new FailingRegistry()).create('defaulted');

    expect(record.plan).toBe(TEST_PLANS.defaultPlan);
  });

  it('refuses a plan the stage does not have, before anything is made', async () => {
    const registry = new FailingRegistry();

    await expect(adminWith(registry).create('gold', 'gold')).rejects.toThrow(UnknownPlanError);
    expect(registry.identifiers.size).toBe(0);
  });

  it('deletes the identifier it made when it cannot put it in the plan, and stores no record', async () => {
    const registry = new FailingRegistry().failNext('add');
    const before = (await apiKeys.list()).length;

    await expect(adminWith(registry).create('unplaced', 'tight')).rejects.toThrow('API Gateway failed: add');

    expect(registry.identifiers.size).toBe(0);
    expect(await apiKeys.list()).toHaveLength(before);
  });

  it('deletes the identifier when the record cannot be stored, leaving no key half-made', async () => {
    const registry = new FailingRegistry();

    const failure = await failureOf(adminWith(registry, missingTable()).create('unrecorded', 'roomy'));

    expect(failure.name).toBe('ResourceNotFoundException');
    expect(registry.identifiers.size).toBe(0);
  });

  it('says exactly what to run when the record cannot be stored and the identifier cannot be deleted either', async () => {
    const registry = new FailingRegistry().failNext('delete');

    const failure = await failureOf(adminWith(registry, missingTable()).create('stranded', 'roomy'));

    const [orphan] = [...registry.identifiers.keys()];
    expect(failure).toBeInstanceOf(IncompleteChangeError);
    expect((failure as IncompleteChangeError).commands).toEqual([
      `aws apigateway delete-api-key --api-key ${orphan}`,
    ]);
    expect(failure.message).toContain('No key was made or changed');
  });

  it('locally, with no registry, keeps the plan in the record only', async () => {
    const { key, record } = await adminWith(undefined).create('local', 'tight');

    expect(record).not.toHaveProperty('usage');
    expect(
      (await authorize(apiKeys, `Bearer ${key}`, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES)).context.plan,
    ).toBe('tight');
  });
});

describe('revoking a key', () => {
  it('revokes its record, then deletes its identifier so that API Gateway refuses even a cached decision', async () => {
    const registry = new FailingRegistry();
    const admin = adminWith(registry);
    const { record } = await admin.create('to revoke', 'roomy');

    const revoked = await admin.revoke(record.keyId);

    expect(revoked).toMatchObject({ done: true, value: { revokedAt: expect.any(String) } });
    expect(registry.identifiers.has(record.usage?.id ?? '')).toBe(false);
  });

  it('says to run it again when the identifier cannot be deleted, and running it again finishes it', async () => {
    const registry = new FailingRegistry();
    const admin = adminWith(registry);
    const { record } = await admin.create('half revoked', 'roomy');
    registry.failNext('delete');

    const failure = await failureOf(admin.revoke(record.keyId));

    expect(failure).toBeInstanceOf(IncompleteChangeError);
    expect((failure as IncompleteChangeError).commands).toEqual([
      `npm run -s keys -- revoke ${record.keyId} --table keys`,
    ]);
    expect((await apiKeys.findById(record.keyId))?.revokedAt).toBeDefined();
    await admin.revoke(record.keyId);
    expect(registry.identifiers.has(record.usage?.id ?? '')).toBe(false);
  });

  it('answers that there is no such key', async () => {
    expect(await adminWith(new FailingRegistry()).revoke('key-000000000000')).toEqual({
      done: false,
      reason: 'No key key-000000000000',
    });
  });
});

describe('moving a key to another plan', () => {
  it('moves its identifier to the new usage plan, then its record', async () => {
    const registry = new FailingRegistry();
    const admin = adminWith(registry);
    const { key, record } = await admin.create('mover', 'roomy');

    const moved = await admin.move(record.keyId, 'tight');

    expect(moved).toMatchObject({ done: true, value: { plan: 'tight', usage: record.usage } });
    expect(registry.identifiers.get(record.usage?.id ?? '')).toBe('tight');
    expect(
      (await authorize(apiKeys, `Bearer ${key}`, METHOD_ARN, TEST_PLANS, SCOPE_RESOURCES)).context.plan,
    ).toBe('tight');
  });

  it('puts the identifier back in the old plan when the new one refuses it, and leaves the record as it was', async () => {
    const registry = new FailingRegistry();
    const admin = adminWith(registry);
    const { record } = await admin.create('stays', 'roomy');
    registry.failNext('add');

    await expect(admin.move(record.keyId, 'tight')).rejects.toThrow('API Gateway failed: add');

    expect(registry.identifiers.get(record.usage?.id ?? '')).toBe('roomy');
    expect((await apiKeys.findById(record.keyId))?.plan).toBe('roomy');
  });

  it('names both ways out when it can neither finish nor undo, and either one converges', async () => {
    const registry = new FailingRegistry();
    const admin = adminWith(registry);
    const { record } = await admin.create('stuck', 'roomy');
    registry.failNext('add', 2);

    const failure = await failureOf(admin.move(record.keyId, 'tight'));

    expect(failure).toBeInstanceOf(IncompleteChangeError);
    expect((failure as IncompleteChangeError).commands).toEqual([
      `npm run -s keys -- move ${record.keyId} --plan tight --table keys`,
      `npm run -s keys -- move ${record.keyId} --plan roomy --table keys`,
    ]);
    expect(registry.identifiers.get(record.usage?.id ?? '')).toBeNull();
    await admin.move(record.keyId, 'tight');
    expect(registry.identifiers.get(record.usage?.id ?? '')).toBe('tight');
    expect((await apiKeys.findById(record.keyId))?.plan).toBe('tight');
  });

  it('repairs a key whose identifier left its usage plan, when moved to the plan it is on', async () => {
    const registry = new FailingRegistry();
    const admin = adminWith(registry);
    const { record } = await admin.create('repaired', 'tight');
    await registry.removeFromPlan(record.usage?.id ?? '', 'tight');

    await admin.move(record.keyId, 'tight');

    expect(registry.identifiers.get(record.usage?.id ?? '')).toBe('tight');
  });

  it('refuses a revoked key, an unknown key and an unknown plan', async () => {
    const admin = adminWith(new FailingRegistry());
    const { record } = await admin.create('revoked mover', 'roomy');
    await admin.revoke(record.keyId);

    expect(await admin.move(record.keyId, 'tight')).toEqual({
      done: false,
      reason: `${record.keyId} is revoked: it has no plan to change`,
    });
    expect(await admin.move('key-000000000000', 'tight')).toMatchObject({ done: false });
    await expect(admin.move(record.keyId, 'gold')).rejects.toThrow(UnknownPlanError);
  });
});

describe('the keys command, when a change stops half-way', () => {
  it('prints what was left and the exact command to run, and exits 1', async () => {
    const registry = new FailingRegistry();
    const { record } = await adminWith(registry).create('reported', 'roomy');
    registry.failNext('delete');
    const lines: string[] = [];

    const code = await main(
      ['revoke', record.keyId, '--table', 'PetStore-staging-TablesApiKeys1', '--region', 'eu-west-1'],
      { out: (line) => lines.push(line), err: (line) => lines.push(line) },
      () => ({ apiKeys, registry, plans: TEST_PLANS, ready: async () => undefined, close: () => undefined }),
    );

    expect(code).toBe(1);
    expect(lines[0]).toContain(`${record.keyId} is revoked`);
    expect(lines.slice(1)).toEqual([
      `  npm run -s keys -- revoke ${record.keyId} --table PetStore-staging-TablesApiKeys1 --region eu-west-1`,
    ]);
  });
});
