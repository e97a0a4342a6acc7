import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { publishPetEventsFunction } from '#functions/publish-pet-events';
import { generateApiKey } from '#shared/auth/api-key';
import { PET_EVENTS, type PetEventName } from '#shared/events/pet-events';
import { exampleEnvelope } from '#tools/asyncapi/build-document';
import { COST_TABLES } from '#tools/costs/cost-tables';
import { costOf, type RequestCost } from '../../bench/capacity';
import { startMeter } from '../../bench/metering';
import { type Admin, adminFor, createBenchTables, seedPets } from '../../bench/tables';
import { benchConfig, benchTargets } from '../../bench/targets';
import { BENCHMARKS_MD, COSTS_MD, price, rowOf, tableAfter } from '../support/costs-doc';
import {
  ACCESS_LOG_BYTES,
  type LogBytesRow,
  measureLogBytes,
  measurePublisherLogBytes,
  PLATFORM_BYTES,
} from '../support/log-bytes';

/**
 * docs/costs.md held to what its figures come from: DynamoDB units measured
 * with the bench's meter, durations from BENCHMARKS.md, log bytes measured here, every dollar
 * figure recomputed from those and the prices table. (What a stage costs idle, from the
 * synthesized stacks: test/infra/idle-costs.test.ts.)
 */

/** The measured table's requests: the bench's function (its target, its warm row) and the log's kind. */
const REQUESTS = {
  list: { doc: 'list (', target: 'list-pets', warm: 'list-pets', logs: 'list' },
  get: { doc: 'get (', target: 'get-pet', warm: 'get-pet', logs: 'get' },
  create: { doc: 'create (', target: 'create-pet', warm: 'create-pet', logs: 'create' },
  'create with key': {
    doc: 'create with an',
    target: 'create-pet-idempotent',
    warm: 'create-pet',
    logs: 'create (Idempotency-Key)',
  },
  change: { doc: 'change (', target: 'update-pet', warm: 'update-pet', logs: 'change' },
  remove: { doc: 'remove (', target: 'delete-pet', warm: 'delete-pet', logs: 'remove' },
  authorizer: { doc: 'authorizer call', target: 'authorizer', warm: 'authorizer', logs: 'authorize' },
} as const;
type RequestName = keyof typeof REQUESTS;

/**
 * After each request that changes or removes its pet, the pet put back as it was, outside the
 * meter: every removal finds it, and every change moves it out of its status and status shard as
 * the first one did (a change that keeps the status writes less: docs/costs.md says how much).
 */
const putBackAfter = async (event: unknown, admin: Admin, TableName: string) => {
  const { httpMethod, pathParameters } = event as {
    httpMethod?: string;
    pathParameters?: Record<string, string> | null;
  };
  if (httpMethod !== 'PATCH' && httpMethod !== 'DELETE') return async () => {};
  const Key = { id: Number(pathParameters?.petId) };
  const { Item } = await admin.doc.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
  if (!Item) throw new Error(`No pet ${Key.id} to ${httpMethod}`);
  return async () => void (await admin.doc.send(new PutCommand({ TableName, Item })));
};

const measured = tableAfter(COSTS_MD, COST_TABLES.measured.marker);
const documented = (request: RequestName) => {
  const [, units = '', duration = '', logBytes = ''] = rowOf(measured, REQUESTS[request].doc);
  const [amount, kind] = units.split(' ');
  return {
    units: Number(amount),
    kind: kind as 'RCU' | 'WCU',
    ms: Number(duration.replace(' ms', '')),
    logBytes: Number(logBytes),
  };
};

describe('what a request costs, in the units measured', () => {
  const costs = new Map<string, RequestCost>();
  let logBytes: LogBytesRow[];

  beforeAll(async () => {
    const endpoint = inject('dynamoDbEndpoint');
    const admin = adminFor(endpoint);
    const meter = await startMeter(endpoint);
    try {
      const { key, record } = generateApiKey('cost-model');
      const names = await createBenchTables(admin, 'cost-model', record);
      await seedPets(admin, names, 25);
      // Each function as its root builds it, once to start (a create leases its block of ids),
      // then three requests metered: what a request costs a running function.
      for (const target of benchTargets(key)) {
        const invoke = target.invoker(benchConfig(meter.endpoint, names));
        const restore = await putBackAfter(target.event, admin, names.pets);
        await invoke();
        await restore();
        meter.take();
        for (let request = 0; request < 3; request++) {
          expect(await invoke()).toBe(target.status);
          await restore();
        }
        costs.set(target.name, costOf(meter.take(), 3));
      }
    } finally {
      admin.client.destroy();
      await meter.close();
    }
    logBytes = await measureLogBytes({ endpoint, requests: 3 });
  }, 60_000);

  it.each(Object.keys(REQUESTS) as RequestName[])(
    'puts the DynamoDB units the bench measures on a %s',
    (request) => {
      const cost = costs.get(REQUESTS[request].target);
      const { units, kind } = documented(request);

      expect(cost).toBeDefined();
      expect(units).toBe(kind === 'RCU' ? cost?.readUnits : cost?.writeUnits);
      expect(kind === 'RCU' ? cost?.writeUnits : cost?.readUnits).toBe(0);
    },
  );

  it.each(Object.keys(REQUESTS) as RequestName[])(
    "puts BENCHMARKS.md's warm p50 of a %s, rounded up to the millisecond Lambda bills",
    (request) => {
      const warm = tableAfter(BENCHMARKS_MD, '### Warm invocations');
      const [, p50 = ''] = rowOf(warm, REQUESTS[request].warm);

      expect(documented(request).ms).toBe(Math.ceil(Number.parseFloat(p50)));
    },
  );

  it.each(Object.keys(REQUESTS) as RequestName[])(
    'puts the log bytes a local run of a %s writes, with Lambda’s lines and the access log line',
    (request) => {
      const row = logBytes.find((candidate) => candidate.operation === REQUESTS[request].logs);
      const accessLog = request === 'authorizer' ? 0 : ACCESS_LOG_BYTES;
      const expected = (row?.functionBytes ?? Number.NaN) + PLATFORM_BYTES + accessLog;

      // Ids and timestamps change a few bytes from run to run.
      expect(Math.abs(documented(request).logBytes - expected)).toBeLessThanOrEqual(expected * 0.03);
    },
  );

  it("says in its prose the bytes it adds up: a create's EMF line, Lambda's lines, the access log line, a refusal's line", () => {
    const text = COSTS_MD.replace(/\s+/g, ' ');
    const bytesOf = (operation: string) =>
      logBytes.find((row) => row.operation === operation)?.functionBytes ?? Number.NaN;
    const written = (before: string, after: string) =>
      Number(new RegExp(`${before}(\\d+)${after}`).exec(text)?.[1]);
    const near = (documented: number, measured: number) =>
      expect(Math.abs(documented - measured)).toBeLessThanOrEqual(measured * 0.03);

    near(written('a create writes its `PetsCreated` EMF line, ', ' bytes'), bytesOf('create'));
    expect(written("Lambda's `START`, `END` and `REPORT` lines \\(", ' bytes')).toBe(PLATFORM_BYTES);
    expect(written('the access log line \\(', ' bytes')).toBe(ACCESS_LOG_BYTES);
    near(written('A rejected request \\(400\\) logs ', ' bytes of its own'), bytesOf('rejected (400)'));
    expect(logBytes.find(({ operation }) => operation === 'rejected (400)')?.functionLines).toBe(1);
  });
});

/** The event each write publishes, by its column. */
const EVENT_OF = {
  create: 'PetCreated',
  'create with key': 'PetCreated',
  change: 'PetChanged',
  remove: 'PetRemoved',
} as const satisfies Record<string, PetEventName>;

const eventBytes = tableAfter(COSTS_MD, COST_TABLES.events.marker);

describe("what a write's event costs", () => {
  const EVENT_ROW = 'event of a write';

  it('puts no DynamoDB unit on it: the publisher uses no table, and Lambda reads the stream for free', () => {
    const [, units = ''] = rowOf(measured, EVENT_ROW);

    expect(publishPetEventsFunction.data).toEqual([]);
    expect(units).toBe('0 RCU');
  });

  it("puts BENCHMARKS.md's warm p50 of the publisher, rounded up to the millisecond Lambda bills", () => {
    const [, p50 = ''] = rowOf(tableAfter(BENCHMARKS_MD, '### Warm invocations'), 'publish-pet-events');
    const [, , duration = ''] = rowOf(measured, EVENT_ROW);

    expect(Number(duration.replace(' ms', ''))).toBe(Math.ceil(Number.parseFloat(p50)));
  });

  it("puts the bytes the publisher logs for a batch at INFO, with Lambda's lines", async () => {
    const [, , , logged = ''] = rowOf(measured, EVENT_ROW);

    expect(Number(logged)).toBe((await measurePublisherLogBytes(5)) + PLATFORM_BYTES);
  });

  it.each(Object.keys(PET_EVENTS) as PetEventName[])(
    'puts the size of a %s as a target receives it',
    (name) => {
      const [, size = ''] = rowOf(eventBytes, name);

      expect(Number(size)).toBe(Buffer.byteLength(JSON.stringify(exampleEnvelope(name))));
    },
  );
});

describe('what a million requests cost', () => {
  const perMillion = tableAfter(COSTS_MD, COST_TABLES.perMillion.marker);
  const columns = ['list', 'get', 'create', 'create with key', 'change', 'remove'] as const;
  const GIB = 2 ** 30;
  const MEMORY_GB = 0.5;

  /**
   * A write's event: PutEvents (one 64 KB chunk), one publisher invocation at most (a batch may
   * hold many writes), its duration and log bytes, and its bytes in the bus's archive.
   */
  const eventCost = (request: (typeof columns)[number]): number => {
    const name = (EVENT_OF as Record<string, PetEventName | undefined>)[request];
    if (!name) return 0;
    const [, , duration = '', logged = ''] = rowOf(measured, 'event of a write');
    const size = Number(rowOf(eventBytes, name)[1]);
    return (
      price('EventBridge custom events') +
      price('Lambda, per million requests') +
      MEMORY_GB * (Number(duration.replace(' ms', '')) / 1_000) * 1e6 * price('Lambda on Arm') +
      ((Number(logged) * 1e6) / GIB) * price('CloudWatch Logs ingestion') +
      ((size * 1e6) / GIB) * price('EventBridge archive, per GB')
    );
  };

  /** Every line of the table, recomputed from the measured table and the prices. */
  const expected = (request: (typeof columns)[number]) => {
    const { units, kind, ms, logBytes } = documented(request);
    const lines = {
      'API Gateway requests': price('API Gateway REST API'),
      'Lambda requests': price('Lambda, per million requests'),
      'Lambda duration': MEMORY_GB * (ms / 1_000) * 1e6 * price('Lambda on Arm'),
      DynamoDB: units * price(`DynamoDB on-demand, per million ${kind === 'RCU' ? 'read' : 'write'}`),
      'CloudWatch Logs ingestion': ((logBytes * 1e6) / GIB) * price('CloudWatch Logs ingestion'),
      // Both stages have the firewall, which inspects every request.
      'AWS WAF requests': price('AWS WAF, per million'),
      'Events (PutEvents, publisher, archive)': eventCost(request),
    };
    return { ...lines, Total: Object.values(lines).reduce((sum, value) => sum + value, 0) };
  };

  it.each(columns)('follows for a %s from the units measured and the prices', (request) => {
    const column = columns.indexOf(request) + 1;
    for (const [line, value] of Object.entries(expected(request))) {
      const written = Number(rowOf(perMillion, line)[column]);
      // Written to the cent: half a cent off at most (and a hair, for floating point).
      expect(Math.abs(written - value), `${line}, ${request}: ${written} for ${value}`).toBeLessThanOrEqual(
        0.005 + 1e-9,
      );
    }
  });
});
