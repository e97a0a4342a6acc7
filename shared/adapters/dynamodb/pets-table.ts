import { randomUUID } from 'node:crypto';
import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { defineTable, type TableAccess, type TableUse } from '#shared/adapters/dynamodb/access';
import { refusedItem, sdkCall } from '#shared/adapters/dynamodb/errors';
import {
  indexKeysMovedBy,
  isStoredPet,
  partitionKeyOf,
  petItem,
  toPet,
  toVersionedPet,
} from '#shared/adapters/dynamodb/pet-items';
import {
  type ListingFilter,
  type PetListing,
  type PositionKind,
  positionKindOf,
} from '#shared/adapters/dynamodb/pet-listing';
import { PETS_TABLE, type PetIndexDesign } from '#shared/adapters/dynamodb/table-design';
import { PetIdTakenError, PetNotFoundError, PetVersionMismatchError } from '#shared/domain/errors';
import type { ListPosition, Pet, PetPage, PetPatch, VersionedPet } from '#shared/domain/pet';
import type { VersionCondition } from '#shared/domain/version-condition';

export interface PetsTableOptions {
  readonly client: DynamoDBDocumentClient;
  readonly petsTable: string;
}

/** `AND #version IN (:v0, …)`, `AND NOT (#version IN (:x0, …))` as `condition` asks, and their values; none for any. */
const versionCondition = ({ versions, except = [] }: VersionCondition) => {
  // An empty list names no version: the condition fails, and ALL_OLD tells a 404 from a 412.
  const within = versions === undefined ? [] : versions.length > 0 ? versions : [0];
  const listed = (prefix: string, list: readonly number[]) =>
    list.map((version, index) => [`:${prefix}${index}`, version]);
  const [inList, outList] = [listed('v', within), listed('x', except)];
  const expression = [
    ...(inList.length > 0 ? [` AND #version IN (${inList.map(([name]) => name).join(', ')})`] : []),
    ...(outList.length > 0 ? [` AND NOT (#version IN (${outList.map(([name]) => name).join(', ')}))`] : []),
  ].join('');
  return expression === '' ? undefined : { expression, values: Object.fromEntries([...inList, ...outList]) };
};

/** A listing continues only from a position of its own kind (its cursor's): else a bug. */
const otherKind = (kind: PositionKind): Error =>
  new Error(`This listing continues from ${kind} positions only`);

/** A walk's one position: the table and an index (shard after shard) are one partition each. */
const singlePosition = (
  kind: PositionKind,
  after: readonly ListPosition[] = [],
): ListPosition | undefined => {
  const [position, ...more] = after;
  if (more.length > 0) throw new Error(`A listing walks one partition, not ${after.length}`);
  if (position && !(kind in position)) throw otherKind(kind);
  return position;
};

/** What a page of a listing is asked for: how many pets, its filter value (an index's), and where it goes on. */
export type PageQuery<L extends PetListing> = {
  readonly limit: number;
  readonly after?: readonly ListPosition[] | undefined;
} & ([ListingFilter<L>] extends [undefined]
  ? { readonly filter?: undefined }
  : { readonly filter: ListingFilter<L> });

/** The items read, `limit + 1` at most, as a page: the extra one, or a read cut short, says more follow. */
const pageOf = (
  kind: PositionKind,
  items: readonly Record<string, unknown>[],
  limit: number,
  cutShort: boolean,
): PetPage => {
  const pets = items.slice(0, limit).map(toPet);
  const following = items[limit];
  const last = pets.at(-1);
  if (kind === 'fromId') return following ? { pets, next: [{ fromId: toPet(following).id }] } : { pets };
  return (following || cutShort) && last ? { pets, next: [{ afterId: last.id }] } : { pets };
};

/** Pets in DynamoDB (table-design.ts); no SDK type or failure leaves this file. */
export class PetsTable {
  private readonly client: DynamoDBDocumentClient;
  private readonly table: string;

  constructor(options: PetsTableOptions) {
    this.client = options.client;
    this.table = options.petsTable;
  }

  /** Puts the pet unless its id is taken; this same pet there is an earlier attempt's lost answer. */
  async create(pet: Pet): Promise<void> {
    try {
      await sdkCall('PutItem', () =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: petItem(pet),
            ConditionExpression: 'attribute_not_exists(id)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
    } catch (error) {
      const item = refusedItem(error);
      if (item && isStoredPet(item, pet)) return;
      throw new PetIdTakenError(pet.id, { cause: error });
    }
  }

  async get(id: number): Promise<VersionedPet | undefined> {
    // Strongly consistent: a client that has just created a pet must be able to read it back.
    const { Item } = await sdkCall('GetItem', () =>
      this.client.send(new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true })),
    );
    return Item ? toVersionedPet(Item) : undefined;
  }

  /**
   * One conditional UpdateItem with a `changeId` new to this call. Refused, the item met says why: none, no
   * pet; this `changeId`, its own earlier attempt whose answer was lost; another, an unexpected version.
   */
  async update(id: number, patch: PetPatch, condition: VersionCondition): Promise<VersionedPet> {
    const changeId = randomUUID();
    const fields = Object.entries(patch).filter(([, value]) => value !== undefined);
    const sets = [...fields, ...Object.entries(indexKeysMovedBy(id, patch)), ['changeId', changeId]];
    const onVersion = versionCondition(condition);
    try {
      const { Attributes = {} } = await sdkCall('UpdateItem', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { id },
            UpdateExpression: `SET #version = #version + :one, ${sets.map((_, index) => `#f${index} = :f${index}`).join(', ')}`,
            ConditionExpression: `attribute_exists(#id)${onVersion?.expression ?? ''}`,
            ExpressionAttributeNames: {
              '#id': 'id',
              '#version': 'version',
              ...Object.fromEntries(sets.map(([name], index) => [`#f${index}`, name])),
            },
            ExpressionAttributeValues: {
              ':one': 1,
              ...Object.fromEntries(sets.map(([, value], index) => [`:f${index}`, value])),
              ...onVersion?.values,
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return toVersionedPet(Attributes);
    } catch (error) {
      const item = refusedItem(error);
      if (!item) throw new PetNotFoundError(id);
      if (item.changeId === changeId) return toVersionedPet(item);
      throw new PetVersionMismatchError(id);
    }
  }

  /** One conditional DeleteItem; refused with no pet, a success if the SDK had sent it before. */
  async delete(id: number, condition: VersionCondition): Promise<void> {
    const onVersion = versionCondition(condition);
    try {
      await sdkCall('DeleteItem', () =>
        this.client.send(
          new DeleteCommand({
            TableName: this.table,
            Key: { id },
            ConditionExpression: `attribute_exists(#id)${onVersion?.expression ?? ''}`,
            ExpressionAttributeNames: { '#id': 'id', ...(onVersion ? { '#version': 'version' } : {}) },
            ...(onVersion ? { ExpressionAttributeValues: onVersion.values } : {}),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
    } catch (error) {
      if (refusedItem(error)) throw new PetVersionMismatchError(id);
      if (((error as ConditionalCheckFailedException).$metadata.attempts ?? 1) > 1) return;
      throw new PetNotFoundError(id);
    }
  }

  /** A page of `listing`: reads at most `limit + 1` items, whose extra one tells whether a next page exists. */
  async page<L extends PetListing>(listing: L, { limit, filter, after }: PageQuery<L>): Promise<PetPage> {
    const kind = positionKindOf(listing);
    const position = singlePosition(kind, after);
    return listing.index
      ? this.walkIndex(listing.index, filter, limit, position)
      : this.scan(limit, position);
  }

  private async scan(limit: number, position: ListPosition | undefined): Promise<PetPage> {
    const { Items = [], LastEvaluatedKey } = await sdkCall('Scan', () =>
      this.client.send(
        new ScanCommand({
          TableName: this.table,
          Limit: limit + 1,
          ...(position && 'afterId' in position ? { ExclusiveStartKey: { id: position.afterId } } : {}),
        }),
      ),
    );
    // Fewer than `limit` yet a LastEvaluatedKey: DynamoDB stopped at its 1 MB page size.
    return pageOf('afterId', Items, limit, LastEvaluatedKey !== undefined);
  }

  /** The pets of one value of the index's field, shard after shard until the page holds `limit + 1`. */
  private async walkIndex(
    index: PetIndexDesign,
    value: unknown,
    limit: number,
    position: ListPosition | undefined,
  ): Promise<PetPage> {
    const fromId = position && 'fromId' in position ? position.fromId : undefined;
    let shard = fromId === undefined ? 0 : fromId % index.shards;
    let bound: { readonly operator: '>' | '>='; readonly id: number } | undefined =
      fromId === undefined ? undefined : { operator: '>=', id: fromId };
    const items: Record<string, unknown>[] = [];
    while (shard < index.shards && items.length <= limit) {
      const wanted = limit + 1 - items.length;
      const from = bound;
      const { Items = [], LastEvaluatedKey } = await sdkCall('Query', () =>
        this.client.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: index.indexName,
            KeyConditionExpression: from ? `#key = :key AND #id ${from.operator} :id` : '#key = :key',
            ExpressionAttributeNames: {
              '#key': index.partitionKey.name,
              ...(from ? { '#id': index.sortKey.name } : {}),
            },
            ExpressionAttributeValues: {
              ':key': partitionKeyOf(index, value, shard),
              ...(from ? { ':id': from.id } : {}),
            },
            Limit: wanted,
          }),
        ),
      );
      items.push(...Items);
      const last = Items.at(-1);
      if (LastEvaluatedKey && last && Items.length < wanted) {
        // DynamoDB stopped at its 1 MB page size inside this shard: go on after the last pet read.
        bound = { operator: '>', id: toPet(last).id };
      } else {
        shard += 1;
        bound = undefined;
      }
    }
    return pageOf('fromId', items, limit, false);
  }
}

/** Pages of the listings a function declares (`listingsOf(…)`): calling another's is a compile error. */
export interface ListingPages<L extends PetListing> {
  page<M extends L>(listing: M, query: PageQuery<M>): Promise<PetPage>;
}

/** The call a listing makes: a Scan of the table, or a Query of its index. */
const callOf = (listing: PetListing): TableAccess =>
  listing.index
    ? { table: PETS_TABLE.key, index: listing.index.indexName, actions: ['dynamodb:Query'] }
    : { table: PETS_TABLE.key, actions: ['dynamodb:Scan'] };

/** The pets table as a function that lists uses it: its listings' calls (its grants), and their pages. */
export const listingsOf = <const L extends readonly PetListing[]>(
  ...listings: L
): TableUse<ListingPages<L[number]>> & { readonly listings: L } => ({
  table: PETS_TABLE.key,
  data: listings.map(callOf),
  listings,
  open: (client, petsTable) => new PetsTable({ client, petsTable }),
});

/** The pets table as functions use it: each method's DynamoDB calls (the stack's grants). */
export const petsTable = defineTable(
  'pets',
  {
    get: [{ actions: ['dynamodb:GetItem'] }],
    create: [{ actions: ['dynamodb:PutItem'] }],
    update: [{ actions: ['dynamodb:UpdateItem'] }],
    delete: [{ actions: ['dynamodb:DeleteItem'] }],
  },
  (client, petsTable) => new PetsTable({ client, petsTable }),
);
