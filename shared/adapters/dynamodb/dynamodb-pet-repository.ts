import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { translateSdkError } from '#shared/adapters/dynamodb/errors';
import { STATUS_INDEX } from '#shared/adapters/dynamodb/table-design';
import type { ListPetsOptions, Pet } from '#shared/domain/pet';
import type { PetRepository } from '#shared/ports/pet-repository';

export interface DynamoDbPetRepositoryOptions {
  readonly client: DynamoDBDocumentClient;
  readonly petsTable: string;
}

/** Items hold exactly the Pet's fields; picking them keeps anything else out of responses. */
const toPet = (item: Record<string, unknown>): Pet => {
  const { id, name, categoryId, status } = item as Pet;
  return { id, name, categoryId, status };
};

/** Pets in DynamoDB: one item per pet (pk `id`), and a GSI `status-index` (pk `status`, sk `id`). */
export class DynamoDbPetRepository implements PetRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;

  constructor(options: DynamoDbPetRepositoryOptions) {
    this.client = options.client;
    this.table = options.petsTable;
  }

  async create(pet: Pet): Promise<void> {
    // The condition makes a duplicate id an error instead of a silent overwrite.
    await this.send('PutItem', () =>
      this.client.send(
        new PutCommand({ TableName: this.table, Item: pet, ConditionExpression: 'attribute_not_exists(id)' }),
      ),
    );
  }

  async get(id: number): Promise<Pet | undefined> {
    // Strongly consistent: a client that has just created a pet must be able to read it back.
    const { Item } = await this.send('GetItem', () =>
      this.client.send(new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true })),
    );
    return Item ? toPet(Item) : undefined;
  }

  /**
   * Filtered: a Query on `status-index`, ascending id (oldest first). Unfiltered: a Scan, in the
   * table's storage order. Either reads at most `limit` items, whatever the size of the table.
   */
  async list({ limit, status }: ListPetsOptions): Promise<Pet[]> {
    const { Items = [] } = status
      ? await this.send('Query', () =>
          this.client.send(
            new QueryCommand({
              TableName: this.table,
              IndexName: STATUS_INDEX.indexName,
              KeyConditionExpression: '#status = :status',
              ExpressionAttributeNames: { '#status': STATUS_INDEX.partitionKey.name },
              ExpressionAttributeValues: { ':status': status },
              Limit: limit,
            }),
          ),
        )
      : await this.send('Scan', () =>
          this.client.send(new ScanCommand({ TableName: this.table, Limit: limit })),
        );
    return Items.map(toPet);
  }

  private async send<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw translateSdkError(error, operation);
    }
  }
}
