import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { LIMITS } from '../../bench/budgets';
import { medianWithInterval } from '../../bench/latency';
import { SETTINGS } from '../../bench/settings';
import { tableAfter } from '../support/costs-doc';

/**
 * The bench's limits are written once, in bench/budgets.ts: the report prints them from there,
 * and the documents that state them are held to it here.
 */

const read = (...path: string[]) => readFileSync(join(PROJECT_ROOT, ...path), 'utf8');
const RECORD = read('docs', 'decisions', '0007-the-bench-budgets-say-what-is-true.md');
/** BENCHMARKS.md as written by hand (the run's block left out), its lines joined. */
const BENCHMARKS_PROSE = read('BENCHMARKS.md')
  .replace(/<!-- bench:begin[\s\S]*<!-- bench:end -->/, '')
  .replace(/\s+/g, ' ');

const times = (cell: string | undefined): number | undefined =>
  cell === '—' || cell === undefined ? undefined : Number(cell.replace(/×$/, ''));

describe("the bench's statistics", () => {
  it('gives the median of paired ratios with its 95% interval from their order statistics', () => {
    const ratios = Array.from({ length: 100 }, (_, index) => 100 - index);

    expect(medianWithInterval(ratios)).toEqual({ n: 100, p50: 50, low: 41, high: 60, halfWidth: 9.5 });
  });

  it('gives one ratio as its own median, with an interval of nothing around it', () => {
    expect(medianWithInterval([1.2])).toEqual({ n: 1, p50: 1.2, low: 1.2, high: 1.2, halfWidth: 0 });
  });
});

describe("the bench's limits, as the documents state them", () => {
  it("puts each function's own-code and warm limits in the record's table, as bench/budgets.ts sets them", () => {
    const rows = tableAfter(RECORD, '<!-- budgets:limits -->');
    const ownCode: Record<string, number> = LIMITS.ownCode;
    const warm: Record<string, number> = LIMITS.warmP50;

    expect(rows.map(([name]) => name)).toEqual(Object.keys(ownCode));
    for (const [name = '', , ownLimit, , warmLimit] of rows) {
      expect(times(ownLimit), name).toBe(ownCode[name]);
      expect(times(warmLimit), name).toBe(warm[name]);
    }
    expect(Object.keys(warm).every((name) => name in ownCode)).toBe(true);
  });

  it('sets each limit halfway between the highest ratio measured and 1.1 times the lowest', () => {
    const rows = tableAfter(RECORD, '<!-- budgets:limits -->');
    const halfway = (runs: string) => {
      const ratios = runs.split(', ').map(Number);
      return Math.round(((Math.max(...ratios) + 1.1 * Math.min(...ratios)) / 2) * 100) / 100;
    };

    for (const [name = '', ownRuns = '', ownLimit, warmRuns = '', warmLimit] of rows) {
      expect(times(ownLimit), name).toBe(halfway(ownRuns));
      if (warmRuns !== '—') expect(times(warmLimit), name).toBe(halfway(warmRuns));
    }
  });

  it('describes the own-code rounds as the full run makes them', () => {
    const { minRounds, maxRounds, precision } = SETTINGS.full.ownCode;

    expect(BENCHMARKS_PROSE).toContain(
      `past the first ${minRounds} for each function whose median of paired ratios is not yet known to ±${precision}`,
    );
    expect(BENCHMARKS_PROSE).toContain(`up to ${maxRounds}.`);
  });

  it('states the capacity, partition and event limits as bench/budgets.ts sets them', () => {
    expect(BENCHMARKS_PROSE).toContain(
      `held ≥ ${LIMITS.ceilingCreatesPerSecond.toLocaleString('en-US')}/s, the hottest key ≤ ${LIMITS.hottestKeyShare * 100}%`,
    );
    expect(BENCHMARKS_PROSE).toContain(`every page ≤ ${LIMITS.statusPageReadUnits} RCU once every shard`);
    expect(BENCHMARKS_PROSE).toContain(`≤ ${LIMITS.statusPageQueries} Queries however small the status`);
    expect(BENCHMARKS_PROSE).toContain(`p50 and p99, held under ${LIMITS.eventP99Ms / 1_000} s`);
  });

  it('leaves every timing limit of a function to the block the bench writes', () => {
    // A ratio limit written by hand outside the block goes stale when bench/budgets.ts changes.
    expect(BENCHMARKS_PROSE).not.toMatch(/[≤<] ?\d+(\.\d+)?×/);
  });
});
