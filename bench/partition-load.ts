import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createPet } from '#functions/create-pet/contract';
import { createPetHandler } from '#functions/create-pet/handler';
import { createDynamoDbClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { ALL_TABLES, type TableDesign } from '#shared/adapters/dynamodb/table-design';
import { writablePetService } from '#shared/composition/pets';
import { createLogger } from '#shared/observability/logger';
import { NO_METRICS } from '#shared/observability/metrics';
import { lambdaContext } from '#tools/lambda/context';
import { BENCH_CONTEXT, outcomeOf } from './lambda-context';
import { createEvent } from './lambda-events';

/**
 * The partition-load model. DynamoDB Local has one partition for everything, so it cannot show a
 * hot key; this model is how the claim "no key takes more than its share" is checked instead.
 * During a real run of creates through createPet's handler, an SDK middleware records every
 * write: the table's partition key value it wrote, and for each global secondary index the
 * index's partition key value of the item written, with the write units DynamoDB charged to
 * each (`ReturnConsumedCapacity: INDEXES`). DynamoDB serves one partition key at most 1,000 write
 * units a second, so the key with the largest share of the units sets the ceiling:
 *
 *     ceiling (creates/s) = 1,000 WCU/s ÷ (hottest key's share of write units × write units per create)
 *
 * which is 1,000 × creates ÷ the hottest key's units: the rate at which that key reaches 1,000.
 */

/** DynamoDB's write throughput per partition, the one limit adaptive capacity cannot lift for one key. */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;

export interface KeyLoad {
  /** `<Table>: <value>` or `<Table>/<index>: <value>`, the table by its logical name. */
  readonly key: string;
  readonly writeUnits: number;
  /** Of all write units of the run. */
  readonly share: number;
}

export interface PartitionLoad {
  readonly creates: number;
  /** Function instances (each its own id blocks) creating side by side. */
  readonly instances: number;
  /** The status every create had (none sent: the default). */
  readonly status: string;
  readonly writeUnits: number;
  readonly writeUnitsPerCreate: number;
  /** The keys with the most write units, most first. */
  readonly hottest: readonly KeyLoad[];
  /** Distinct partition keys written. */
  readonly keys: number;
  /** 1,000 WCU/s ÷ (hottest share × write units per create). */
  readonly ceilingCreatesPerSecond: number;
}

/** An attribute value as the SDK sends it (`{ S: … }`, `{ N: … }`), or a plain one. */
const plain = (value: unknown): string => {
  if (value && typeof value === 'object') {
    const [only] = Object.values(value as Record<string, unknown>);
    return String(only);
  }
  return String(value);
};

interface WriteRecord {
  readonly key: string;
  readonly units: number;
}

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);

/**
 * A client with the functions' configuration and a middleware that asks every write for its
 * capacity per table and index and records which partition key each unit went to. A write it
 * cannot attribute (no capacity returned, an update of a table with indexes, a batch or a
 * transaction) fails the run rather than go uncounted.
 */
const recordingClient = (endpoint: string, names: TableNames) => {
  const client = createDynamoDbClient({ endpoint });
  const writes: WriteRecord[] = [];
  const designOf = new Map<string, TableDesign>(ALL_TABLES.map((design) => [names[design.key], design]));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      const input = args.input as {
        TableName?: string;
        Item?: Record<string, unknown>;
        Key?: Record<string, unknown>;
      };
      if (!WRITES.has(command)) {
        if (/Write|Transact|Batch|ExecuteStatement/.test(command))
          throw new Error(`${command} is not modelled`);
        return next(args);
      }
      const design = designOf.get(input.TableName ?? '');
      if (!design) throw new Error(`${command} on an unknown table ${input.TableName}`);
      if (command === 'UpdateItemCommand' && design.indexes.length > 0) {
        throw new Error(`An UpdateItem of ${design.logicalName}, whose indexes it may move, is not modelled`);
      }
      const result = await next({ ...args, input: { ...input, ReturnConsumedCapacity: 'INDEXES' } });
      const consumed = (
        result.output as {
          ConsumedCapacity?: {
            Table?: { CapacityUnits?: number };
            GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
          };
        }
      ).ConsumedCapacity;
      const tableUnits = consumed?.Table?.CapacityUnits;
      if (tableUnits === undefined) throw new Error(`${command} returned no ConsumedCapacity`);
      const record = input.Item ?? input.Key ?? {};
      writes.push({
        key: `${design.logicalName}: ${plain(record[design.partitionKey.name])}`,
        units: tableUnits,
      });
      for (const index of design.indexes) {
        const units = consumed?.GlobalSecondaryIndexes?.[index.indexName]?.CapacityUnits ?? 0;
        const value = input.Item?.[index.partitionKey.name];
        if (units === 0 && value === undefined) continue;
        if (value === undefined)
          throw new Error(`${index.indexName} was written for an item without its key`);
        writes.push({ key: `${design.logicalName}/${index.indexName}: ${plain(value)}`, units });
      }
      return result;
    },
    { step: 'initialize', name: 'benchPartitionLoad' },
  );
  return { client, writes };
};

/** createPet as its composition root builds it, on the recording client, silent. */
const createPetFunction = (client: DynamoDBClient, names: TableNames) => {
  const logger = createLogger({ logLevel: 'SILENT' });
  return createPetHandler({
    pets: writablePetService(
      { tables: names, dynamoDb: {}, metrics: false },
      {
        keyPrefix: createPet.operationId,
        retentionSeconds: createPet.idempotency.retentionSeconds,
        problems: logger,
      },
      documentClientOf(client),
    ),
    logger,
    metrics: NO_METRICS,
  });
};

export interface PartitionLoadOptions {
  readonly endpoint: string;
  /** Fresh tables. */
  readonly names: TableNames;
  /** Function instances, each creating one pet after another, all side by side. */
  readonly instances: number;
  readonly createsPerInstance: number;
  /** How many keys to report. @default 5 */
  readonly top?: number;
}

/**
 * Creates `instances × createsPerInstance` pets through createPet's own handler, all without a
 * status (so all `available`, the default, the worst case for the status index), with several
 * instances side by side as Lambda runs them (each leases its own blocks of ids), and models
 * the load on each partition key.
 */
export const measurePartitionLoad = async (options: PartitionLoadOptions): Promise<PartitionLoad> => {
  const { client, writes } = recordingClient(options.endpoint, options.names);
  try {
    const instances = Array.from({ length: options.instances }, () =>
      createPetFunction(client, options.names),
    );
    await Promise.all(
      instances.map(async (handler, instance) => {
        for (let index = 0; index < options.createsPerInstance; index++) {
          const event = createEvent({ name: `Load ${instance}-${index}`, categoryId: 1 + (index % 12) });
          const status = outcomeOf(
            await handler(event as never, lambdaContext('load', BENCH_CONTEXT) as never),
          );
          if (status !== 201) throw new Error(`A create answered ${status}, not 201`);
        }
      }),
    );
  } finally {
    client.destroy();
  }
  const creates = options.instances * options.createsPerInstance;
  const byKey = new Map<string, number>();
  for (const write of writes) byKey.set(write.key, (byKey.get(write.key) ?? 0) + write.units);
  const writeUnits = [...byKey.values()].reduce((sum, units) => sum + units, 0);
  const hottest = [...byKey]
    .map(([key, units]) => ({ key, writeUnits: units, share: units / writeUnits }))
    .sort((a, b) => b.writeUnits - a.writeUnits || a.key.localeCompare(b.key))
    .slice(0, options.top ?? 5);
  const top = hottest[0];
  if (!top) throw new Error('The run wrote nothing');
  const writeUnitsPerCreate = writeUnits / creates;
  return {
    creates,
    instances: options.instances,
    status: 'available',
    writeUnits,
    writeUnitsPerCreate,
    hottest,
    keys: byKey.size,
    ceilingCreatesPerSecond: PARTITION_WRITE_UNITS_PER_SECOND / (top.share * writeUnitsPerCreate),
  };
};
