import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { sdkCall } from '#shared/adapters/dynamodb/errors';
import { parseStoredItem } from '#shared/adapters/dynamodb/stored-items';
import { STATUS_INDEX } from '#shared/adapters/dynamodb/table-design';
import { PetIdTakenError } from '#shared/domain/errors';
import { type ListPetsOptions, type ListPosition, Pet, type PetPage } from '#shared/domain/pet';
import type { PetRepository } from '#shared/ports/pet-repository';

export interface DynamoDbPetRepositoryOptions {
  readonly client: DynamoDBDocumentClient;
  readonly petsTable: string;
}

/**
 * A stored item as a Pet, checked with the Pet schema: an item that is not a valid pet is never
 * served (InvalidStoredItemError, a 500 logged with the item's id and what is wrong). Only the
 * Pet's fields are kept, so nothing else an item may hold reaches a response.
 */
const toPet = (item: Record<string, unknown>): Pet => parseStoredItem(Pet, item, 'pet', item.id);

/** Whether a stored item is this very pet (the same fields, and a valid pet). */
const isStored = (item: Record<string, unknown>, pet: Pet): boolean => {
  const stored = Pet.safeParse(item);
  return (
    stored.success &&
    stored.data.id === pet.id &&
    stored.data.name === pet.name &&
    stored.data.categoryId === pet.categoryId &&
    stored.data.status === pet.status
  );
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

  /**
   * Puts the pet unless its id is taken: a taken id is never overwritten. When the item already
   * there is this same pet, the write is a success: that is an earlier attempt of this write,
   * applied by DynamoDB although its answer was lost or late (the SDK sends a timed-out write
   * again; a retried create writes the id its record reserved). Another pet there is
   * PetIdTakenError. The stored item comes back with the refusal (`ALL_OLD`), at no extra cost.
   */
  async create(pet: Pet): Promise<void> {
    try {
      await sdkCall('PutItem', () =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: pet,
            ConditionExpression: 'attribute_not_exists(id)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The exception carries the item as DynamoDB sends it: the document client leaves it so.
      if (error.Item && isStored(unmarshall(error.Item), pet)) return;
      throw new PetIdTakenError(pet.id, { cause: error });
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
