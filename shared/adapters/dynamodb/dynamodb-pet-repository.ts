import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { sdkCall } from '#shared/adapters/dynamodb/errors';
import { STATUS_INDEX } from '#shared/adapters/dynamodb/table-design';
import { PetIdTakenError } from '#shared/domain/errors';
import type { ListPetsOptions, ListPosition, Pet, PetPage } from '#shared/domain/pet';
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

/**
 * The position a listing continues from. The table and each status's part of the index are one
 * partition each, so a listing walks one position; several would be a cursor of another design.
 */
const singlePosition = (after: readonly ListPosition[] = []): ListPosition | undefined => {
  const [position, ...more] = after;
  if (more.length > 0) throw new Error(`A listing walks one partition, not ${after.length}`);
  return position;
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
    try {
      await sdkCall('PutItem', () =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: pet,
            ConditionExpression: 'attribute_not_exists(id)',
          }),
        ),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException)
        throw new PetIdTakenError(pet.id, { cause: error });
      throw error;
    }
  }

  async get(id: number): Promise<Pet | undefined> {
    // Strongly consistent: a client that has just created a pet must be able to read it back.
    const { Item } = await sdkCall('GetItem', () =>
      this.client.send(new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true })),
    );
    return Item ? toPet(Item) : undefined;
  }

  /**
   * Filtered: a Query on `status-index`, ascending id (oldest first). Unfiltered: a Scan, in the
   * table's storage order. Either reads at most `limit + 1` items, whatever the size of the table
   * or how far the walk has come: the extra item only tells whether a next page exists, so a
   * page never links to an empty one. The position of the next page is the last pet returned,
   * turned into an ExclusiveStartKey here and nowhere else.
   */
  async list({ limit, status, after }: ListPetsOptions): Promise<PetPage> {
    const position = singlePosition(after);
    const Limit = limit + 1;
    const { Items = [], LastEvaluatedKey } = status
      ? await sdkCall('Query', () =>
          this.client.send(
            new QueryCommand({
              TableName: this.table,
              IndexName: STATUS_INDEX.indexName,
              KeyConditionExpression: '#status = :status',
              ExpressionAttributeNames: { '#status': STATUS_INDEX.partitionKey.name },
              ExpressionAttributeValues: { ':status': status },
              Limit,
              // An index's start key holds the index key and the table key: status and id.
              ...(position ? { ExclusiveStartKey: { status, id: position.afterId } } : {}),
            }),
          ),
        )
      : await sdkCall('Scan', () =>
          this.client.send(
            new ScanCommand({
              TableName: this.table,
              Limit,
              ...(position ? { ExclusiveStartKey: { id: position.afterId } } : {}),
            }),
          ),
        );
    const pets = Items.slice(0, limit).map(toPet);
    const last = pets.at(-1);
    // More than `limit` items read: more follow. Fewer, yet a LastEvaluatedKey: DynamoDB stopped at
    // its 1 MB page size (far above 101 pets of at most a few hundred bytes), so more may follow.
    const more = Items.length > limit || LastEvaluatedKey !== undefined;
    return more && last ? { pets, next: [{ afterId: last.id }] } : { pets };
  }
}
