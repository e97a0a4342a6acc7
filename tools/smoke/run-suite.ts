import { stripVTControlCharacters } from 'node:util';
import type { ContractArea, ContractTarget } from '#tools/contract/target';

/** The outcome of one check of the contract suite. */
export interface CheckResult {
  readonly area: string;
  readonly name: string;
  readonly ok: boolean;
  readonly ms: number;
  /** Why it failed: the first lines of the assertion's message. */
  readonly reason?: string;
}

const reasonOf = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  // vitest's expect messages carry ANSI colours; the report is plain text.
  return stripVTControlCharacters(message).split('\n').slice(0, 12).join('\n');
};

/**
 * Runs every check of the suite against the target, `concurrency` at a time (gently: a
 * deployed stage serves real clients meanwhile), and reports each as it ends.
 */
export const runSuite = async (
  suite: readonly ContractArea[],
  target: ContractTarget,
  options: { readonly concurrency?: number; readonly onResult?: (result: CheckResult) => void } = {},
): Promise<CheckResult[]> => {
  const pending = suite.flatMap(({ area, checks }) => checks.map((check) => ({ area, check })));
  const results: CheckResult[] = [];
  const worker = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const started = performance.now();
      let result: CheckResult;
      try {
        await next.check.run(target);
        result = { area: next.area, name: next.check.name, ok: true, ms: performance.now() - started };
      } catch (error) {
        result = {
          area: next.area,
          name: next.check.name,
          ok: false,
          ms: performance.now() - started,
          reason: reasonOf(error),
        };
      }
      results.push(result);
      options.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return results;
};

/** The report a person reads: a line per check, each failure with its reason, a summary. */
export const formatReport = (
  results: readonly CheckResult[],
  baseUrl: string,
  options: { readonly readOnly?: boolean } = {},
): string => {
  const lines: string[] = [
    options.readOnly
      ? `Contract suite against ${baseUrl}, read-only: the checks that create pets are skipped`
      : `Contract suite against ${baseUrl}`,
  ];
  const areas = [...new Set(results.map((result) => result.area))];
  for (const area of areas) {
    lines.push('', area);
    for (const result of results.filter((candidate) => candidate.area === area)) {
      lines.push(`  ${result.ok ? 'ok  ' : 'FAIL'} ${result.name} (${result.ms.toFixed(0)} ms)`);
      if (result.reason) lines.push(...result.reason.split('\n').map((line) => `         ${line}`));
    }
  }
  const failed = results.filter((result) => !result.ok);
  lines.push(
    '',
    failed.length === 0
      ? `All ${results.length} checks passed.`
      : `${failed.length} of ${results.length} checks failed:\n${failed.map((result) => `  - ${result.area} › ${result.name}`).join('\n')}`,
  );
  return lines.join('\n');
};
