import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { statusShardKey } from '#shared/adapters/dynamodb/pet-items';
import { STATUS_SHARD_INDEX, STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import type { PetStatus } from '#shared/domain/pet';

/**
 * The design the listing by status did not take, kept to measure it against the one it took: a
 * page in global id order, merged from every shard. Each shard may hold all of the next page, so
 * each is asked for `limit + 1` pets after the last id shown, and the smallest `limit + 1` ids of
 * the lot make the page and tell whether another follows. One position (the last id) suffices.
 * Not used by the service.
 */
export const mergedStatusPage = async (
  client: DynamoDBDocumentClient,
  petsTable: string,
  { status, limit, afterId }: { status: PetStatus; limit: number; afterId?: number },
): Promise<{ ids: number[]; next?: number }> => {
  const shards = await Promise.all(
    Array.from({ length: STATUS_SHARDS }, (_, shard) =>
      client.send(
        new QueryCommand({
          TableName: petsTable,
          IndexName: STATUS_SHARD_INDEX.indexName,
          KeyConditionExpression: afterId === undefined ? '#key = :key' : '#key = :key AND #id > :after',
          ExpressionAttributeNames: {
            '#key': STATUS_SHARD_INDEX.partitionKey.name,
            ...(afterId === undefined ? {} : { '#id': STATUS_SHARD_INDEX.sortKey.name }),
          },
          ExpressionAttributeValues: {
            ':key': statusShardKey(status, shard),
            ...(afterId === undefined ? {} : { ':after': afterId }),
          },
          Limit: limit + 1,
        }),
      ),
    ),
  );
  const ids = shards
    .flatMap(({ Items = [] }) => Items.map((item) => Number(item.id)))
    .sort((a, b) => a - b)
    .slice(0, limit + 1);
  const page = ids.slice(0, limit);
  const last = page.at(-1);
  return ids.length > limit && last !== undefined ? { ids: page, next: last } : { ids: page };
};
