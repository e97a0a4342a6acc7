import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runBench } from '../../bench/bench';
import { writeReportFile } from '../../bench/benchmarks-file';
import { TARGETS } from '../../bench/functions';
import { renderConsole } from '../../bench/report';
import { SETTINGS } from '../../bench/settings';

/**
 * `npm run bench` in quick mode, on the run's DynamoDB Local, so that the harness cannot rot. It
 * checks that every measurement ran and produced a number; it asserts no timing budget (timings
 * on a shared test machine would flake).
 */
describe('npm run bench (quick mode)', () => {
  it('produces a report with every row and positive numbers', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'bench-quick-'));
    try {
      const settings = SETTINGS.quick;
      const functions = TARGETS.map((target) => target.name);

      const report = await runBench({ mode: 'quick', dynamoDbEndpoint: inject('dynamoDbEndpoint'), workDir });

      expect(report.bundles.map((pair) => pair.name)).toEqual(functions);
      for (const pair of report.bundles) {
        for (const bundle of [pair.service, pair.baseline]) {
          expect(bundle.bytes).toBeGreaterThan(0);
          expect(bundle.gzipBytes).toBeGreaterThan(0);
          expect(bundle.byPackage.length).toBeGreaterThan(0);
        }
      }

      expect(report.coldStarts.map((row) => row.name)).toEqual(functions);
      const variants = new Set(TARGETS.filter((target) => target.variantOf).map((target) => target.name));
      for (const row of report.coldStarts) {
        expect(row.ratioPerRound.p50).toBeGreaterThan(0);
        expect(row.withoutSourceMaps === undefined).toBe(variants.has(row.name));
        for (const series of [
          row.service,
          row.baseline,
          ...(row.withoutSourceMaps ? [row.withoutSourceMaps.service, row.withoutSourceMaps.baseline] : []),
        ]) {
          expect(series?.total.n).toBe(settings.coldRuns);
          expect(series?.total.p50).toBeGreaterThan(0);
          expect(series?.load.p50).toBeGreaterThan(0);
          expect(series?.firstInvoke.p50).toBeGreaterThan(0);
        }
      }

      expect(report.warm.map((row) => row.name)).toEqual(functions.filter((name) => !variants.has(name)));
      for (const row of report.warm) {
        for (const summary of [row.service, row.baseline]) {
          expect(summary.n).toBe(settings.warmIterations);
          expect(summary.p50).toBeGreaterThan(0);
          expect(summary.p99).toBeGreaterThanOrEqual(summary.p50);
        }
      }

      expect(report.endToEnd.map((row) => row.request)).toEqual(['GET /pets', 'POST /pets', 'GET /pets/1']);
      for (const row of report.endToEnd) {
        expect(row.failures).toBe(0);
        expect(row.requestsPerSecond).toBeGreaterThan(0);
        expect(row.latency.p50).toBeGreaterThan(0);
      }

      const operations = [
        'list',
        'list ?status=available',
        'get',
        'authorize',
        'create',
        'create (Idempotency-Key)',
      ];
      const walks = [
        'list, page 1',
        `list, page ${settings.walkPage}`,
        'list ?status=available, page 1',
        `list ?status=available, page ${settings.walkPage}`,
      ];
      expect(report.capacity.map((row) => row.operation)).toEqual([...operations, ...operations, ...walks]);
      for (const pets of [settings.smallTable, settings.largeTable]) {
        const rows = report.capacity.filter((row) => row.pets === pets);
        expect(rows.map((row) => row.operation)).toEqual(
          pets === settings.largeTable ? [...operations, ...walks] : operations,
        );
        for (const row of rows) {
          expect(row.service.readUnits + row.service.writeUnits).toBeGreaterThan(0);
          expect(row.service.calls).toBeGreaterThan(0);
          if (row.baseline) expect(row.baseline.readUnits + row.baseline.writeUnits).toBeGreaterThan(0);
        }
      }

      // Cold start and bundle per function, warm per warm one; list growth, later page (2 each), extra write units.
      expect(report.budgets).toHaveLength(2 * functions.length + report.warm.length + 5);
      for (const budget of report.budgets) {
        expect(Number.isFinite(budget.value)).toBe(true);
        expect(budget.value).toBeGreaterThan(budget.kind === 'ratio' ? 0 : -1);
      }
      // A quick run judges the deterministic budgets only: timings of one cold start prove nothing.
      const timing = report.budgets.filter((budget) => budget.basis === 'timing');
      expect(timing.map((budget) => budget.verdict)).toEqual(Array(9).fill('not judged in quick mode'));
      const printed = renderConsole(report);
      expect(printed.match(/\| (PASS|MISS) +\|/g)).toHaveLength(report.budgets.length - timing.length);
      expect(printed.match(/\| not judged in quick mode \|/g)).toHaveLength(timing.length);

      const markdown = join(workDir, 'BENCHMARKS.md');
      writeReportFile(report, markdown);
      expect(readFileSync(markdown, 'utf8')).toContain('### Budgets');
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }, 180_000);
});
