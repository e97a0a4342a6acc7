import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { defineTable } from '#shared/adapters/dynamodb/access';
import { sdkCall } from '#shared/adapters/dynamodb/errors';
import type { ApiKeyRecord, UsageIdentifier } from '#shared/auth/api-key';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

export interface DynamoDbApiKeyRepositoryOptions {
  readonly client: DynamoDBDocumentClient;
  readonly apiKeysTable: string;
}

/** A string attribute of a key's item; an item without it is not a key this code wrote. */
const text = (item: Record<string, unknown>, name: keyof ApiKeyRecord): string => {
  const value = item[name];
  if (typeof value !== 'string') throw new Error(`An API key item has no string ${name}`);
  return value;
};

const usageOf = (item: Record<string, unknown>): UsageIdentifier | undefined => {
  const usage = item.usage as Record<string, unknown> | undefined;
  if (usage === undefined) return undefined;
  if (typeof usage?.id !== 'string' || typeof usage.value !== 'string')
    throw new Error('An API key item has a malformed usage identifier');
  return { id: usage.id, value: usage.value };
};

/** Absent on a record made before scopes (every scope); otherwise a list of names, checked by the authorizer. */
const scopesOf = (item: Record<string, unknown>): readonly string[] | undefined => {
  const { scopes } = item;
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string'))
    throw new Error('An API key item has malformed scopes');
  return scopes;
};

const toRecord = (item: Record<string, unknown>): ApiKeyRecord => {
  const usage = usageOf(item);
  const scopes = scopesOf(item);
  return {
    keyHash: text(item, 'keyHash'),
    keyId: text(item, 'keyId'),
    name: text(item, 'name'),
    createdAt: text(item, 'createdAt'),
    ...(item.revokedAt === undefined ? {} : { revokedAt: text(item, 'revokedAt') }),
    ...(item.plan === undefined ? {} : { plan: text(item, 'plan') }),
    ...(usage ? { usage } : {}),
    ...(scopes ? { scopes } : {}),
  };
};

export class DynamoDbApiKeyRepository implements ApiKeyRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;

  constructor(options: DynamoDbApiKeyRepositoryOptions) {
    this.client = options.client;
    this.table = options.apiKeysTable;
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    // Strongly consistent: a key revoked a moment ago must not be read, and cached, as valid.
    const { Item } = await sdkCall('GetItem', () =>
      this.client.send(new GetCommand({ TableName: this.table, Key: { keyHash }, ConsistentRead: true })),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await sdkCall('PutItem', () => this.client.send(new PutCommand({ TableName: this.table, Item: record })));
  }

  async putIfAbsent(record: ApiKeyRecord): Promise<ApiKeyRecord> {
    try {
      await sdkCall('PutItem', () =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: record,
            ConditionExpression: 'attribute_not_exists(keyHash)',
          }),
        ),
      );
      return record;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    // Stored already (or by this very call, its answer lost and the put retried): as it is now.
    const stored = await this.findByHash(record.keyHash);
    if (!stored) throw new Error('An API key record refused as present cannot be read back');
    return stored;
  }

  /** Key administration only (a handful of keys): a paginated scan is fine here. */
  async list(): Promise<ApiKeyRecord[]> {
    const records: ApiKeyRecord[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await sdkCall('Scan', () =>
        this.client.send(new ScanCommand({ TableName: this.table, ExclusiveStartKey })),
      );
      records.push(...(page.Items ?? []).map(toRecord));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Key administration only: a scan, like `list`. */
  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    return (await this.list()).find((candidate) => candidate.keyId === keyId);
  }

  async assignPlan(keyHash: string, plan: string): Promise<boolean> {
    try {
      await sdkCall('UpdateItem', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { keyHash },
            // Never creates an item: a key that is not stored stays so.
            ConditionExpression: 'attribute_exists(keyHash)',
            UpdateExpression: 'SET #plan = :plan',
            ExpressionAttributeNames: { '#plan': 'plan' },
            ExpressionAttributeValues: { ':plan': plan },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async revoke(keyId: string, revokedAt: string): Promise<boolean> {
    const record = await this.findById(keyId);
    if (!record) return false;
    await sdkCall('UpdateItem', () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { keyHash: record.keyHash },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :revokedAt)',
          ExpressionAttributeValues: { ':revokedAt': revokedAt },
        }),
      ),
    );
    return true;
  }
}

/** The API keys table as functions use it: the authorizer's GetItem by hash. */
export const apiKeysTable = defineTable(
  'apiKeys',
  { findByHash: [{ actions: ['dynamodb:GetItem'] }] },
  (client, apiKeysTable) => new DynamoDbApiKeyRepository({ client, apiKeysTable }),
);
