import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { authorizerHandler } from '#functions/authorizer/handler';
import { createPet as createPetOperation } from '#functions/create-pet/contract';
import { createPetHandler } from '#functions/create-pet/handler';
import { getPetHandler } from '#functions/get-pet/handler';
import { listPetsHandler } from '#functions/list-pets/handler';
import { STAGE_PLANS } from '#infra/stage-plans';
import { createDynamoDbClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { DynamoDbIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import { PetService } from '#shared/domain/pet-service';
import { createLogger } from '#shared/observability/logger';
import { NO_METRICS } from '#shared/observability/metrics';
import { lambdaContext } from '#tools/lambda/context';
import { mergedStatusPage } from './alternatives/merged-status-walk';
import { baselineAuthorizer } from './baselines/authorizer';
import { baselineCreatePet } from './baselines/create-pet';
import { baselineCreatePetIdempotent } from './baselines/create-pet-idempotent';
import { baselineGetPet } from './baselines/get-pet';
import { baselineListPets } from './baselines/list-pets';
import { BENCH_CONTEXT, freshRequest, outcomeOf } from './lambda-context';
import { type BenchEvent, type BenchFunction, EXPECTED_STATUS, listEvent } from './lambda-events';
import { type Admin, seedPets } from './tables';

/** What one request costs in DynamoDB, as DynamoDB reports it. */
export interface RequestCost {
  /** Read capacity units (GetItem, Query, Scan). */
  readonly readUnits: number;
  /**
   * Read units with every Query and Scan counted at 0.5 at least: DynamoDB bills each request at
   * least one 4 KB read (0.5 RCU eventually consistent), where DynamoDB Local reports 0 for a
   * Query that finds nothing. What a page of a sparse status costs in AWS.
   */
  readonly billedReadUnits: number;
  /** Write capacity units (PutItem, UpdateItem). */
  readonly writeUnits: number;
  /** DynamoDB calls made. */
  readonly calls: number;
  /** Items a Query or Scan read (`ScannedCount`): what a listing's cost follows. */
  readonly itemsScanned: number;
}

export type CapacityOperation =
  | 'list'
  | 'list ?status=available'
  | 'create'
  | 'create (Idempotency-Key)'
  | 'get'
  | 'authorize'
  /** A page deep into a walk that follows Link from the first page, 20 pets a page. */
  | `${'list' | 'list ?status=available'}, page ${number}`;

/**
 * A whole walk by status, page after page: what its pages cost, read through the listPets
 * handler (the design in use) or through the design it did not take (a merge of every shard in
 * global id order, bench/alternatives), on the same table.
 */
export interface WalkCost {
  readonly design: 'shard after shard (in use)' | 'merge of all shards (not used)';
  readonly status: 'available';
  readonly pets: number;
  /** Pets of the status, seen once each over the walk. */
  readonly statusPets: number;
  readonly pages: number;
  readonly perPage: {
    readonly readUnits: Spread;
    readonly billedReadUnits: Spread;
    readonly calls: Spread;
  };
}

export interface Spread {
  readonly mean: number;
  readonly max: number;
}

const spread = (values: readonly number[]): Spread => ({
  mean: values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length),
  max: Math.max(0, ...values),
});

export interface CapacityRow {
  readonly operation: CapacityOperation;
  readonly pets: number;
  readonly service: RequestCost;
  /** Absent where the baselines have no equivalent (the filtered listing). */
  readonly baseline?: RequestCost;
}

interface MeteredCall {
  readonly command: string;
  readonly units: number;
  readonly scanned: number;
}

const READS = /^(GetItem|Query|Scan|BatchGetItem)/;
const QUERIES = /^(Query|Scan)/;
/** The least DynamoDB bills for one eventually consistent Query or Scan: one 4 KB read. */
const MINIMUM_QUERY_UNITS = 0.5;

/**
 * A client with the functions' own configuration (createDynamoDbClient) plus one middleware, on
 * the stack the document client over it shares: it asks every call for `ReturnConsumedCapacity: 'TOTAL'` and records what DynamoDB
 * answers. DynamoDB Local 3.3 reports consumed capacity with DynamoDB's rules (checked when this
 * benchmark was written: 1 RCU for a consistent GetItem, 0.5 eventually consistent, Scan/Query by
 * the 4 KB of items read); a call without it fails the run rather than count as free.
 */
const meteredClient = (endpoint: string) => {
  const client = createDynamoDbClient({ endpoint });
  const calls: MeteredCall[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const result = await next({ ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } });
      const output = result.output as {
        ConsumedCapacity?: { CapacityUnits?: number };
        ScannedCount?: number;
      };
      const units = output.ConsumedCapacity?.CapacityUnits;
      const command = context.commandName ?? 'unknown';
      if (units === undefined) throw new Error(`${command} returned no ConsumedCapacity`);
      calls.push({ command, units, scanned: output.ScannedCount ?? 0 });
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return { client, calls };
};

const costOf = (calls: readonly MeteredCall[], requests: number): RequestCost => {
  const sum = (pick: (call: MeteredCall) => number) =>
    calls.reduce((total, call) => total + pick(call), 0) / requests;
  return {
    readUnits: sum((call) => (READS.test(call.command) ? call.units : 0)),
    billedReadUnits: sum((call) =>
      READS.test(call.command)
        ? QUERIES.test(call.command)
          ? Math.max(MINIMUM_QUERY_UNITS, call.units)
          : call.units
        : 0,
    ),
    writeUnits: sum((call) => (READS.test(call.command) ? 0 : call.units)),
    calls: calls.length / requests,
    itemsScanned: sum((call) => call.scanned),
  };
};

type Handler = (event: never, context: never) => Promise<unknown>;

/**
 * The functions' handlers as their composition roots (shared/composition) assemble them, but with
 * every adapter on the metered client, and silent: a SILENT logger and no metrics, so that the
 * bench's own output stays free of function logs. Reporting costs no DynamoDB capacity.
 */
const handlersFor = (plain: DynamoDBClient, names: TableNames) => {
  const observability = { logger: createLogger({ logLevel: 'SILENT' }), metrics: NO_METRICS };
  const client = documentClientOf(plain);
  const petsTable = names.pets;
  const countersTable = names.counters;
  const apiKeysTable = names.apiKeys;
  const idempotencyTable = names.idempotency;
  const readOnly = new PetService({ pets: new DynamoDbPetRepository({ client, petsTable }) });
  const writable = new PetService({
    pets: new DynamoDbPetRepository({ client, petsTable }),
    ids: new DynamoDbIdSequence({ client, countersTable, sequence: PET_ID_SEQUENCE }),
    records: new DynamoDbIdempotencyStore({
      client,
      idempotencyTable,
      keyPrefix: createPetOperation.operationId,
      retentionSeconds: createPetOperation.idempotency.retentionSeconds,
    }),
    problems: observability.logger,
  });
  const createPet = createPetHandler({ pets: writable, ...observability });
  return {
    service: {
      'list-pets': listPetsHandler({ pets: readOnly, ...observability }),
      'create-pet': createPet,
      'create-pet-idempotent': createPet,
      'get-pet': getPetHandler({ pets: readOnly, ...observability }),
      authorizer: authorizerHandler({
        apiKeys: new DynamoDbApiKeyRepository({ client, apiKeysTable }),
        logger: observability.logger,
        plans: STAGE_PLANS.production,
      }),
    } as Record<BenchFunction, Handler>,
    baseline: {
      'list-pets': baselineListPets({ client, petsTable }),
      'create-pet': baselineCreatePet({ client, petsTable, countersTable }),
      'create-pet-idempotent': baselineCreatePetIdempotent({
        client,
        petsTable,
        countersTable,
        idempotencyTable,
      }),
      'get-pet': baselineGetPet({ client, petsTable }),
      authorizer: baselineAuthorizer({ client, apiKeysTable }),
    } as Record<BenchFunction, Handler>,
  };
};

export interface CapacityOptions {
  readonly admin: Admin;
  readonly endpoint: string;
  /** Fresh tables: seeded here with `smallTable`, then grown to `largeTable` pets. */
  readonly names: TableNames;
  readonly events: Readonly<Record<BenchFunction, BenchEvent>>;
  readonly smallTable: number;
  readonly largeTable: number;
  readonly requests: number;
  /** The page of a walk measured against its first page, with `largeTable` pets. */
  readonly walkPage: number;
  readonly progress?: (line: string) => void;
}

/** The `cursor` of a listing's Link to its next page. */
const nextCursor = (result: unknown): string => {
  const link = (result as { headers?: Record<string, string> }).headers?.Link ?? '';
  const cursor = new URLSearchParams(/^<[^?]*\?([^>]*)>/.exec(link)?.[1] ?? '').get('cursor');
  if (!cursor) throw new Error(`No next page: Link ${JSON.stringify(link)}`);
  return cursor;
};

export interface CapacityReport {
  readonly rows: readonly CapacityRow[];
  /** Whole walks of `available` at both sizes, in both designs. */
  readonly walks: readonly WalkCost[];
}

/**
 * DynamoDB cost per request of each operation, for the service and its baseline, with
 * `smallTable` and then `largeTable` pets in the table, and of whole walks by status. The
 * handlers are the functions' own (shared/handlers) with the adapters built on the metered
 * client: the very calls the functions make.
 */
export const measureCapacity = async (options: CapacityOptions): Promise<CapacityReport> => {
  const metered = meteredClient(options.endpoint);
  const handlers = handlersFor(metered.client, options.names);
  const documents = documentClientOf(metered.client);

  const cost = async (
    handler: Handler,
    event: BenchEvent,
    expected: number,
    label: string,
  ): Promise<RequestCost> => {
    metered.calls.length = 0;
    for (let index = 0; index < options.requests; index++) {
      const status = outcomeOf(
        await handler(
          freshRequest(structuredClone(event)) as never,
          lambdaContext(label, BENCH_CONTEXT) as never,
        ),
      );
      if (status !== expected) throw new Error(`${label} answered ${status}, not ${expected}`);
    }
    return costOf(metered.calls, options.requests);
  };

  let petsInTable = 0;
  const measureAt = async (pets: number): Promise<CapacityRow[]> => {
    const { service, baseline } = handlers;
    const { events } = options;
    const pair = async (operation: CapacityOperation, name: BenchFunction): Promise<CapacityRow> => ({
      operation,
      pets,
      service: await cost(service[name], events[name], EXPECTED_STATUS[name], `service ${name}`),
      baseline: await cost(baseline[name], events[name], EXPECTED_STATUS[name], `baseline ${name}`),
    });
    const rows = [
      await pair('list', 'list-pets'),
      {
        operation: 'list ?status=available',
        pets,
        service: await cost(
          service['list-pets'],
          listEvent({ status: 'available' }),
          200,
          'service list-pets filtered',
        ),
      } satisfies CapacityRow,
      await pair('get', 'get-pet'),
      await pair('authorize', 'authorizer'),
      // Last: every create adds a pet, so the listings above saw exactly `pets` pets.
      await pair('create', 'create-pet'),
      await pair('create (Idempotency-Key)', 'create-pet-idempotent'),
    ];
    petsInTable += 4 * options.requests;
    return rows;
  };

  /**
   * A walk following Link from the first page: the cost of its first page and of page `walkPage`,
   * reached the way a client reaches it (each page's cursor from the page before).
   */
  const walk = async (status?: 'available'): Promise<CapacityRow[]> => {
    const listPets = handlers.service['list-pets'];
    const filter: Record<string, string> = status ? { status } : {};
    const label = status ? 'list ?status=available' : 'list';
    const first = await cost(listPets, listEvent(filter), 200, `${label} page 1`);
    let cursor: string | undefined;
    for (let page = 1; page < options.walkPage; page++) {
      const event = listEvent({ ...filter, ...(cursor ? { cursor } : {}) });
      cursor = nextCursor(await listPets(event as never, lambdaContext('walk', BENCH_CONTEXT) as never));
    }
    const later = await cost(
      listPets,
      listEvent({ ...filter, ...(cursor ? { cursor } : {}) }),
      200,
      `${label} page ${options.walkPage}`,
    );
    return [
      { operation: `${label}, page 1`, pets: petsInTable, service: first },
      { operation: `${label}, page ${options.walkPage}`, pets: petsInTable, service: later },
    ];
  };

  /**
   * Every page of a walk of `available`, in both designs, each page's cost on its own: through
   * listPets following Link (in use), and through the merge of all shards (not used).
   */
  const walkWhole = async (pets: number): Promise<WalkCost[]> => {
    const listPets = handlers.service['list-pets'];
    const pageCosts = async (page: (after?: string) => Promise<{ seen: number; next?: string }>) => {
      const costs: RequestCost[] = [];
      let seen = 0;
      let after: string | undefined;
      do {
        metered.calls.length = 0;
        const result = await page(after);
        costs.push(costOf(metered.calls, 1));
        seen += result.seen;
        after = result.next;
      } while (after !== undefined);
      return { costs, seen };
    };
    const walkOf = (
      design: WalkCost['design'],
      { costs, seen }: { costs: RequestCost[]; seen: number },
    ): WalkCost => ({
      design,
      status: 'available',
      pets,
      statusPets: seen,
      pages: costs.length,
      perPage: {
        readUnits: spread(costs.map((cost) => cost.readUnits)),
        billedReadUnits: spread(costs.map((cost) => cost.billedReadUnits)),
        calls: spread(costs.map((cost) => cost.calls)),
      },
    });
    const sharded = await pageCosts(async (cursor) => {
      const result = await listPets(
        listEvent({ status: 'available', ...(cursor ? { cursor } : {}) }) as never,
        lambdaContext('walk', BENCH_CONTEXT) as never,
      );
      const link = (result as { headers?: Record<string, string> }).headers?.Link;
      const seen = (JSON.parse((result as { body: string }).body) as unknown[]).length;
      return link ? { seen, next: nextCursor(result) } : { seen };
    });
    const merged = await pageCosts(async (after) => {
      const page = await mergedStatusPage(documents, options.names.pets, {
        status: 'available',
        limit: 20,
        ...(after === undefined ? {} : { afterId: Number(after) }),
      });
      return page.next === undefined
        ? { seen: page.ids.length }
        : { seen: page.ids.length, next: String(page.next) };
    });
    return [walkOf('shard after shard (in use)', sharded), walkOf('merge of all shards (not used)', merged)];
  };

  await seedPets(options.admin, options.names, options.smallTable);
  petsInTable = options.smallTable;
  const smallWalks = await walkWhole(petsInTable);
  const small = await measureAt(options.smallTable);
  options.progress?.(`capacity: ${options.smallTable} pets done`);

  // Fill up after the ids the creates' blocks took.
  await seedPets(options.admin, options.names, options.largeTable - petsInTable);
  petsInTable = options.largeTable;
  // The walks read only: before the creates of the large table's rows, at exactly `largeTable` pets.
  const walks = [...(await walk()), ...(await walk('available'))];
  const largeWalks = await walkWhole(petsInTable);
  const large = await measureAt(options.largeTable);
  options.progress?.(`capacity: ${options.largeTable} pets done`);
  return { rows: [...small, ...large, ...walks], walks: [...smallWalks, ...largeWalks] };
};
