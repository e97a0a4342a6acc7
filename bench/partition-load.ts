import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createPetFunction } from '#functions/create-pet';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { ALL_TABLES, type TableDesign } from '#shared/adapters/dynamodb/table-design';
import { kebabName } from '#shared/composition/function';
import type { Meter, MeteredCall } from './metering';
import { benchConfig, invoke, requestTo } from './targets';

/**
 * DynamoDB Local has one partition, so each write's units are charged to the partition keys it wrote
 * (bench/metering.ts). A key takes at most 1,000 WCU/s (adaptive capacity cannot lift it), so:
 *     ceiling (creates/s) = 1,000 WCU/s ÷ (hottest key's share of write units × write units per create)
 */
const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;

/** The write units of one write, by the partition key each went to; fails on a write it cannot place. */
const placed = (call: MeteredCall, designs: ReadonlyMap<string, TableDesign>): [string, number][] => {
  if (!/^(PutItem|UpdateItem|DeleteItem)$/.test(call.command)) {
    if (/Write|Transact|Batch|Statement/.test(call.command))
      throw new Error(`${call.command} is not modelled`);
    return [];
  }
  const design = designs.get(String(call.input.TableName));
  if (!design) throw new Error(`${call.command} on an unknown table ${call.input.TableName}`);
  if (call.command === 'UpdateItem' && design.indexes.length > 0) {
    throw new Error(`An UpdateItem of ${design.logicalName}, whose indexes it may move, is not modelled`);
  }
  const units = call.consumed?.Table?.CapacityUnits ?? 0;
  const item = unmarshall((call.input.Item ?? call.input.Key ?? {}) as Record<string, AttributeValue>);
  return [
    [`${design.logicalName}: ${item[design.partitionKey.name]}`, units],
    ...design.indexes.flatMap((index): [string, number][] => {
      const indexUnits = call.consumed?.GlobalSecondaryIndexes?.[index.indexName]?.CapacityUnits ?? 0;
      const value = item[index.partitionKey.name];
      if (value === undefined && indexUnits > 0)
        throw new Error(`${index.indexName} written without its key`);
      return value === undefined ? [] : [[`${design.logicalName}/${index.indexName}: ${value}`, indexUnits]];
    }),
  ];
};

/** `instances × createsPerInstance` creates, all `available` (the status index's worst), side by side. */
export const measurePartitionLoad = async (options: {
  readonly meter: Meter;
  readonly names: TableNames;
  readonly instances: number;
  readonly createsPerInstance: number;
}) => {
  const config = benchConfig(options.meter.endpoint, options.names);
  const contract = createPetFunction.operation;
  await Promise.all(
    Array.from({ length: options.instances }, async (_, instance) => {
      const handler = createPetFunction.build(config);
      for (let index = 0; index < options.createsPerInstance; index++) {
        const event = requestTo(contract);
        event.body = JSON.stringify({ name: `Load ${instance}-${index}`, categoryId: 1 + (index % 12) });
        const status = await invoke(handler, event)();
        if (status !== 201) throw new Error(`A create answered ${status}, not 201`);
      }
    }),
  );
  const designs = new Map(ALL_TABLES.map((design) => [options.names[design.key], design]));
  const byKey = new Map<string, number>();
  for (const [key, units] of options.meter.take().flatMap((call) => placed(call, designs))) {
    byKey.set(key, (byKey.get(key) ?? 0) + units);
  }
  const writeUnits = [...byKey.values()].reduce((sum, units) => sum + units, 0);
  // The five keys with the most write units, most first; a key is `<Table>: <value>` or `<Table>/<index>: <value>`.
  const hottest = [...byKey]
    .map(([key, units]) => ({ key, writeUnits: units, share: units / writeUnits }))
    .sort((a, b) => b.writeUnits - a.writeUnits || a.key.localeCompare(b.key))
    .slice(0, 5);
  const top = hottest[0];
  if (!top) throw new Error('The run wrote nothing');
  const creates = options.instances * options.createsPerInstance;
  return {
    subject: kebabName(createPetFunction.name),
    creates,
    instances: options.instances,
    writeUnits,
    writeUnitsPerCreate: writeUnits / creates,
    hottest,
    keys: byKey.size,
    ceilingCreatesPerSecond: PARTITION_WRITE_UNITS_PER_SECOND / (top.share * (writeUnits / creates)),
  };
};

export type PartitionLoad = Awaited<ReturnType<typeof measurePartitionLoad>>;
