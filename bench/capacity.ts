import { listPetsFunction } from '#functions/list-pets';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { kebabName } from '#shared/composition/function';
import { lambdaContext } from '#tools/lambda/context';
import { type BuiltBundles, pairOf } from './bundles';
import { type Children, runChild } from './children';
import { BENCH_CONTEXT, freshRequest } from './lambda-context';
import type { Meter, MeteredCall } from './metering';
import type { BenchSettings } from './settings';
import { type Admin, restorerOf, seedPets } from './tables';
import { type BenchTarget, benchConfig, requestTo } from './targets';

const READS = /^(GetItem|Query|Scan)$/;

export const costOf = (calls: readonly MeteredCall[], requests: number) => {
  const sum = (pick: (call: MeteredCall, units: number) => number) =>
    calls.reduce((total, call) => {
      // A refused call (the retry of a write applied after all) reports none; an answered one must.
      const units = call.consumed?.CapacityUnits ?? (call.status === 200 ? Number.NaN : 0);
      if (Number.isNaN(units)) throw new Error(`${call.command} returned no ConsumedCapacity`);
      return total + pick(call, units);
    }, 0) / requests;
  const read = (call: MeteredCall) => READS.test(call.command);
  return {
    readUnits: sum((call, units) => (read(call) ? units : 0)),
    /** With every Query and Scan at 0.5 at least, as DynamoDB bills them (Local reports 0 for none found). */
    billedReadUnits: sum((call, units) =>
      !read(call) ? 0 : call.command === 'GetItem' ? units : Math.max(0.5, units),
    ),
    writeUnits: sum((call, units) => (read(call) ? 0 : units)),
    calls: calls.length / requests,
    /** Items a Query or Scan read (`ScannedCount`): what a listing's cost follows. */
    itemsScanned: sum((call) => call.scanned),
  };
};

const spread = (values: readonly number[]) => ({
  mean: values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length),
  max: Math.max(0, ...values),
});

/** DynamoDB cost per request of every function and its baseline at two table sizes, and of whole walks. */
export const measureCapacity = async (
  options: {
    readonly admin: Admin;
    readonly meter: Meter;
    readonly names: TableNames;
    readonly targets: readonly BenchTarget[];
    readonly children: Children;
    readonly bundles: BuiltBundles;
  },
  settings: Pick<BenchSettings, 'smallTable' | 'largeTable' | 'capacityRequests'>,
) => {
  const { meter } = options;
  const requests = settings.capacityRequests;
  const config = benchConfig(meter.endpoint, options.names);
  const children = { ...options.children, endpoint: meter.endpoint, names: options.names };
  const list = listPetsFunction.build(config);
  // Reads first, writes last: every create adds a pet, and the reads see exactly `pets` of them.
  const writes = (target: BenchTarget) => Number(target.kind === 'write');
  // The publisher uses no table: the stream's reads by Lambda are free (docs/costs.md).
  const ordered = options.targets
    .filter((target) => target.kind !== 'publisher')
    .sort((a, b) => writes(a) - writes(b));
  let pets = 0;

  /** `call` on a clean meter, and its calls; a 503 (a busy machine's deadline) is made again, twice at most. */
  const metered = async <R>(call: () => Promise<R>, status: (result: R) => number) => {
    for (let attempt = 1; ; attempt++) {
      meter.take();
      const result = await call();
      if (status(result) !== 503 || attempt === 3)
        return { result, status: status(result), calls: meter.take() };
    }
  };

  /** Built afresh: a first create leases a block of ids, as its baseline's does. */
  const measureAt = async () => {
    const rows: { name: string; pets: number; service: RequestCost; baseline: RequestCost }[] = [];
    const at = pets;
    for (const target of ordered) {
      const invoke = target.invoker(config);
      const restore = restorerOf(target.event, options.admin, options.names.pets);
      const calls: MeteredCall[] = [];
      for (let index = 0; index < requests; index++) {
        const answer = await metered(invoke, (status) => status);
        await restore();
        if (answer.status !== target.status) throw new Error(`${target.name} answered ${answer.status}`);
        calls.push(...answer.calls);
      }
      const service = costOf(calls, requests);
      meter.take();
      await runChild(children, target, [pairOf(options.bundles, target.name).baseline.file], {
        iterations: requests,
      });
      rows.push({ name: target.name, pets: at, service, baseline: costOf(meter.take(), requests) });
      // Each create, the function's and its baseline's, adds a pet.
      if (target.status === 201) pets += 2 * requests;
    }
    return rows;
  };

  /** A walk of the listing following `Link` from its first page to its last, 20 a page, each metered on its own. */
  const walk = async (query: '' | '?status=available') => {
    const costs: RequestCost[] = [];
    let listed = 0;
    let cursor: string | null = null;
    do {
      const params: Record<string, string> = query ? { status: 'available' } : {};
      if (cursor) params.cursor = cursor;
      const event = requestTo(listPetsFunction.operation, { query: params });
      const { result, calls } = await metered(
        () => list(freshRequest(event), lambdaContext('bench', BENCH_CONTEXT)),
        (answer) => answer.statusCode,
      );
      if (result.statusCode !== 200) throw new Error(`A page of a walk answered ${result.statusCode}`);
      costs.push(costOf(calls, 1));
      const page: unknown = JSON.parse(result.body);
      listed += Array.isArray(page) ? page.length : 0;
      const link = String(result.headers?.Link ?? '');
      cursor = new URLSearchParams(/^<[^?]*\?([^>]*)>/.exec(link)?.[1] ?? '').get('cursor');
    } while (cursor);
    return {
      query,
      pets,
      listed,
      pages: costs.length,
      firstPage: costs[0]?.billedReadUnits ?? 0,
      billedReadUnits: spread(costs.map((page) => page.billedReadUnits)),
      calls: spread(costs.map((page) => page.calls)),
    };
  };

  await seedPets(options.admin, options.names, settings.smallTable);
  pets = settings.smallTable;
  const smallWalks = [await walk(''), await walk('?status=available')];
  const small = await measureAt();
  // Fill up after the ids the creates' blocks took.
  await seedPets(options.admin, options.names, settings.largeTable - pets);
  pets = settings.largeTable;
  const largeWalks = [await walk(''), await walk('?status=available')];
  const large = await measureAt();
  return {
    listing: kebabName(listPetsFunction.name),
    /** `pets`: when the row began (a create adds its own). */
    rows: [...small, ...large],
    walks: [...smallWalks, ...largeWalks],
  };
};

export type RequestCost = ReturnType<typeof costOf>;
export type CapacityReport = Awaited<ReturnType<typeof measureCapacity>>;
