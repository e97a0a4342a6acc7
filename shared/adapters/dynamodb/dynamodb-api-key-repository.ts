import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { translateSdkError } from '#shared/adapters/dynamodb/errors';
import type { ApiKeyRecord } from '#shared/auth/api-key';
import type { ApiKeyRepository } from '#shared/ports/api-key-repository';

export interface DynamoDbApiKeyRepositoryOptions {
  readonly client: DynamoDBDocumentClient;
  readonly apiKeysTable: string;
}

const toRecord = (item: Record<string, unknown>): ApiKeyRecord => {
  const { keyHash, keyId, name, createdAt, revokedAt } = item as unknown as ApiKeyRecord;
  return revokedAt === undefined
    ? { keyHash, keyId, name, createdAt }
    : { keyHash, keyId, name, createdAt, revokedAt };
};

/** API keys in DynamoDB, one item per key, keyed by the hex SHA-256 of the key. */
export class DynamoDbApiKeyRepository implements ApiKeyRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;

  constructor(options: DynamoDbApiKeyRepositoryOptions) {
    this.client = options.client;
    this.table = options.apiKeysTable;
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    try {
      // Strongly consistent: a key revoked a moment ago must not be read, and cached, as valid.
      const { Item } = await this.client.send(
        new GetCommand({ TableName: this.table, Key: { keyHash }, ConsistentRead: true }),
      );
      return Item ? toRecord(Item) : undefined;
    } catch (error) {
      throw translateSdkError(error, 'GetItem');
    }
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.table, Item: record }));
  }

  /** Key administration only (a handful of keys): a paginated scan is fine here. */
  async list(): Promise<ApiKeyRecord[]> {
    const records: ApiKeyRecord[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(new ScanCommand({ TableName: this.table, ExclusiveStartKey }));
      records.push(...(page.Items ?? []).map(toRecord));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async revoke(keyId: string, revokedAt: string): Promise<boolean> {
    const record = (await this.list()).find((candidate) => candidate.keyId === keyId);
    if (!record) return false;
    await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { keyHash: record.keyHash },
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :revokedAt)',
        ExpressionAttributeValues: { ':revokedAt': revokedAt },
      }),
    );
    return true;
  }
}
