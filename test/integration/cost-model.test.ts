import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { STAGE_NAMES, STAGE_SETTING } from '#infra/stage-names';
import { generateApiKey } from '#shared/auth/api-key';
import { costOf, type RequestCost } from '../../bench/capacity';
import { startMeter } from '../../bench/metering';
import { type Admin, adminFor, createBenchTables, seedPets } from '../../bench/tables';
import { benchConfig, benchTargets } from '../../bench/targets';
import { ACCESS_LOG_BYTES, type LogBytesRow, measureLogBytes, PLATFORM_BYTES } from '../support/log-bytes';
import { buildTestApp } from '../support/pet-store-app';
import { resourcesOfType } from '../support/template-queries';

/**
 * docs/costs.md held to what its figures come from: DynamoDB units measured
 * with the bench's meter, durations from BENCHMARKS.md, log bytes measured here, every dollar
 * figure recomputed from those and the prices table, and the idle alarms counted in the stacks.
 */

const COSTS_MD = readFileSync(join(PROJECT_ROOT, 'docs', 'costs.md'), 'utf8');
const BENCHMARKS_MD = readFileSync(join(PROJECT_ROOT, 'BENCHMARKS.md'), 'utf8');

/** The rows of the first Markdown table after `start`, header and separator left out, cells trimmed. */
const tableAfter = (text: string, start: string): string[][] => {
  const from = text.indexOf(start);
  if (from < 0) throw new Error(`No "${start}"`);
  const lines = text.slice(from + start.length).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replace(/^\*\*(.*)\*\*$/, '$1')),
    );
  }
  return rows.slice(2);
};

/** The row of a table whose first cell starts with `label`. */
const rowOf = (rows: readonly string[][], label: string): string[] => {
  const row = rows.find(([first]) => first?.startsWith(label));
  if (!row) throw new Error(`No row "${label}"`);
  return row;
};

const prices = tableAfter(COSTS_MD, '<!-- costs:prices -->');
const price = (label: string): number => Number(rowOf(prices, label)[1]);

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

const measured = tableAfter(COSTS_MD, '<!-- costs:measured -->');
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
});

describe('what a million requests cost', () => {
  const perMillion = tableAfter(COSTS_MD, '<!-- costs:per-million -->');
  const columns = ['list', 'get', 'create', 'create with key', 'change', 'remove'] as const;
  const GIB = 2 ** 30;
  const MEMORY_GB = 0.5;

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

describe('what a stage costs idle', () => {
  const idle = tableAfter(COSTS_MD, '<!-- costs:idle -->');
  const { stacks } = buildTestApp();

  it.each(STAGE_NAMES)(
    'counts the alarms of the synthesized %s stack, and the metrics they watch',
    (stageName) => {
      const template = Template.fromStack(stacks[stageName]);
      const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm');
      const metrics = alarms
        .map(([, alarm]) =>
          alarm.Properties.MetricName
            ? 1
            : (alarm.Properties.Metrics as { MetricStat?: unknown }[]).filter((metric) => metric.MetricStat)
                .length,
        )
        .reduce((sum, count) => sum + count, 0);
      const [label = '', cost] = rowOf(idle, 'Alarms');

      expect(label).toContain(`${alarms.length} alarms watching ${metrics} metrics`);
      expect(Number(cost)).toBeCloseTo(metrics * price('CloudWatch alarm'), 2);
      template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
      template.resourceCountIs('AWS::KMS::Key', 1);
    },
    // Synthesizing a stack takes under a second on a quiet machine, several on a busy one.
    60_000,
  );

  it.each(STAGE_NAMES)('prices the web ACL the synthesized %s stack has, rule by rule', (stageName) => {
    const template = Template.fromStack(stacks[stageName]);
    const [, webAcl] = resourcesOfType(template, 'AWS::WAFv2::WebACL')[0] ?? [];
    const rules = (webAcl?.Properties.Rules as unknown[] | undefined)?.length ?? 0;
    const [label = '', cost] = rowOf(idle, 'Firewall');

    expect(rules).toBeGreaterThan(0);
    expect(label).toContain(`its ${rules} rules`);
    expect(Number(cost)).toBeCloseTo(price('AWS WAF web ACL') + rules * price('AWS WAF rule'), 2);
  });

  it('adds up to its total, from the prices of a dashboard and a key', () => {
    expect(Number(rowOf(idle, 'Dashboard')[1])).toBe(price('CloudWatch dashboard'));
    expect(Number(rowOf(idle, 'KMS key')[1])).toBe(price('KMS customer managed key'));
    const parts = idle.filter(([label]) => label !== 'Total').map(([, cost]) => Number(cost));
    expect(Number(rowOf(idle, 'Total')[1])).toBeCloseTo(
      parts.reduce((sum, cost) => sum + cost, 0),
      2,
    );
  });
});

describe("what a developer's stage costs idle", () => {
  const idle = tableAfter(COSTS_MD, '<!-- costs:idle-dev -->');
  const { stacks } = buildTestApp({ context: { [STAGE_SETTING]: 'dev-costs' } });
  const stack = stacks['dev-costs'];

  it('counts the alarms of the synthesized dev stack, its dashboard and key, and no web ACL', () => {
    if (!stack) throw new Error('No dev stack in the app');
    const template = Template.fromStack(stack);
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm');
    const metrics = alarms
      .map(([, alarm]) =>
        alarm.Properties.MetricName
          ? 1
          : (alarm.Properties.Metrics as { MetricStat?: unknown }[]).filter((metric) => metric.MetricStat)
              .length,
      )
      .reduce((sum, count) => sum + count, 0);
    const [label = '', cost] = rowOf(idle, 'Alarms');

    expect(label).toContain(`${alarms.length} alarms watching ${metrics} metrics`);
    expect(Number(cost)).toBeCloseTo(metrics * price('CloudWatch alarm'), 2);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.resourceCountIs('AWS::KMS::Key', 1);
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(Number(rowOf(idle, 'Firewall: none')[1])).toBe(0);
  }, 60_000); // Synthesizing a stack takes under a second on a quiet machine, several on a busy one.

  it('adds up to its total, from the prices of a dashboard and a key', () => {
    expect(Number(rowOf(idle, 'Dashboard')[1])).toBe(price('CloudWatch dashboard'));
    expect(Number(rowOf(idle, 'KMS key')[1])).toBe(price('KMS customer managed key'));
    const parts = idle.filter(([label]) => label !== 'Total').map(([, cost]) => Number(cost));
    expect(Number(rowOf(idle, 'Total')[1])).toBeCloseTo(
      parts.reduce((sum, cost) => sum + cost, 0),
      2,
    );
  });

  it("prices an hour of it from its monthly total, and the key's wait after cdk destroy", () => {
    const total = Number(rowOf(idle, 'Total')[1]);
    const hour = (total / 730).toFixed(3);
    const wait = ((price('KMS customer managed key') * 7) / 30).toFixed(2);

    expect(COSTS_MD).toContain(`about ${total.toFixed(2)} / 730 = $${hour}`);
    expect(COSTS_MD).toContain(`at most $${wait} more`);
  });
});
