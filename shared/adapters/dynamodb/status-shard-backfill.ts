import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { shardOf, statusShardKey } from '#shared/adapters/dynamodb/pet-items';
import { PETS_TABLE, STATUS_SHARD_INDEX } from '#shared/adapters/dynamodb/table-design';
import { PetStatus } from '#shared/domain/pet';

/**
 * The migration of a pets table written before the status index was sharded: gives every pet
 * the `statusShard` attribute the sharded index is keyed by (`<status>#<id mod 16>`), as a create
 * writes it today. Not run by the service; `npm run backfill:status-shards` runs it against a
 * stage (docs/deploy.md, "Migrating to the sharded status index").
 *
 * - Idempotent: a pet whose attribute is already right is not written; running it again over a
 *   finished table writes nothing.
 * - Resumable: it scans the table in key order from a position (`after`, the id of the last pet
 *   of a page done) and reports that position after each page, so a run that stops can go on
 *   where it stopped; starting over from the beginning is also safe, only slower.
 * - Safe beside the running service: each write is conditional on the pet still having the status
 *   it was computed from; a pet created meanwhile already carries its key.
 */

export interface BackfillProgress {
  /** Pets read so far, and of those: written now, right already, changed meanwhile (left as they are). */
  readonly scanned: number;
  readonly updated: number;
  readonly alreadyDone: number;
  readonly changedMeanwhile: number;
  /** The id to resume after (`after`); absent once the whole table is done. */
  readonly after?: number;
}

export interface BackfillOptions {
  readonly client: DynamoDBDocumentClient;
  readonly petsTable: string;
  /** Resume after this pet's id, as a previous run reported it. @default the beginning */
  readonly after?: number;
  /** Pets read per Scan page. @default 500 */
  readonly pageSize?: number;
  /** Writes in flight at once. @default 8 */
  readonly concurrency?: number;
  /** Called after every page, with the totals so far. */
  readonly onPage?: (progress: BackfillProgress) => void | Promise<void>;
}

type Outcome = 'updated' | 'alreadyDone' | 'changedMeanwhile';

const SHARD_ATTRIBUTE = STATUS_SHARD_INDEX.partitionKey.name;

/** Backfills the whole table from `after` on; resolves to the totals. */
export const backfillStatusShards = async (options: BackfillOptions): Promise<BackfillProgress> => {
  const { client, petsTable } = options;
  const concurrency = options.concurrency ?? 8;
  let totals: BackfillProgress = { scanned: 0, updated: 0, alreadyDone: 0, changedMeanwhile: 0 };
  let after = options.after;

  const backfill = async (item: Record<string, unknown>): Promise<Outcome> => {
    const id = Number(item.id);
    const status = v.parse(PetStatus, item.status);
    const key = statusShardKey(status, shardOf(id));
    if (item[SHARD_ATTRIBUTE] === key) return 'alreadyDone';
    try {
      await client.send(
        new UpdateCommand({
          TableName: petsTable,
          Key: { [PETS_TABLE.partitionKey.name]: id },
          UpdateExpression: 'SET #shard = :shard',
          ConditionExpression: '#status = :status',
          ExpressionAttributeNames: { '#shard': SHARD_ATTRIBUTE, '#status': 'status' },
          ExpressionAttributeValues: { ':shard': key, ':status': status },
        }),
      );
      return 'updated';
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return 'changedMeanwhile';
      throw error;
    }
  };

  do {
    const { Items = [], LastEvaluatedKey } = await client.send(
      new ScanCommand({
        TableName: petsTable,
        Limit: options.pageSize ?? 500,
        ProjectionExpression: '#id, #status, #shard',
        ExpressionAttributeNames: { '#id': 'id', '#status': 'status', '#shard': SHARD_ATTRIBUTE },
        ...(after === undefined ? {} : { ExclusiveStartKey: { id: after } }),
      }),
    );
    const outcomes: Outcome[] = [];
    for (let start = 0; start < Items.length; start += concurrency) {
      outcomes.push(...(await Promise.all(Items.slice(start, start + concurrency).map(backfill))));
    }
    const count = (outcome: Outcome) => outcomes.filter((each) => each === outcome).length;
    after = LastEvaluatedKey === undefined ? undefined : Number(LastEvaluatedKey.id);
    totals = {
      scanned: totals.scanned + Items.length,
      updated: totals.updated + count('updated'),
      alreadyDone: totals.alreadyDone + count('alreadyDone'),
      changedMeanwhile: totals.changedMeanwhile + count('changedMeanwhile'),
      ...(after === undefined ? {} : { after }),
    };
    await options.onPage?.(totals);
  } while (after !== undefined);
  return totals;
};
