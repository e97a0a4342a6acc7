/** Summary of a sample of durations in milliseconds. */
export interface Summary {
  readonly n: number;
  readonly min: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile (the smallest value with at least `p`% of the sample at or below it). */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) throw new Error('percentile of an empty sample');
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
};

export const summarise = (sample: readonly number[]): Summary => {
  const sorted = [...sample].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
  };
};

export const ratio = (value: number, baseline: number): number => value / baseline;
