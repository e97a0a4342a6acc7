import { stripVTControlCharacters } from 'node:util';
import { QuotaExhausted } from '#tools/contract/api-client';
import { type ContractArea, runCheck } from '#tools/contract/check';
import type { ContractTarget } from '#tools/contract/target';

export interface CheckResult {
  readonly area: string;
  readonly name: string;
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly ms: number;
  readonly reason?: string;
}

const reasonOf = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  // Node's assertion messages carry ANSI colours when run on a terminal; the report is plain text.
  return stripVTControlCharacters(message).split('\n').slice(0, 12).join('\n');
};

/** Checks at once: a stage serves real clients meanwhile. */
const CONCURRENCY = 4;

/** Runs every check against the target; rejects with QuotaExhausted at once when the key's quota is used up. */
export const runSuite = async (
  suite: readonly ContractArea[],
  target: ContractTarget,
): Promise<CheckResult[]> => {
  const pending = suite.flatMap(({ area, checks }) => checks.map((check) => ({ area, check })));
  const results: CheckResult[] = [];
  let exhausted: QuotaExhausted | undefined;
  const worker = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const started = performance.now();
      const ended = (status: CheckResult['status'], reason?: string): CheckResult => ({
        area: next.area,
        name: next.check.name,
        status,
        ms: performance.now() - started,
        ...(reason === undefined ? {} : { reason }),
      });
      try {
        const outcome = await runCheck(next.check, target);
        results.push(outcome.status === 'skipped' ? ended('skipped', outcome.reason) : ended('passed'));
      } catch (error) {
        if (error instanceof QuotaExhausted) {
          exhausted = error;
          pending.length = 0;
          return;
        }
        results.push(ended('failed', reasonOf(error)));
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (exhausted) throw exhausted;
  return results;
};

const MARK: Record<CheckResult['status'], string> = { passed: 'ok  ', failed: 'FAIL', skipped: 'SKIP' };

/** The report a person reads: a line per check, the failures named again, the skips by reason, the tally. */
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
      if (result.status === 'skipped') {
        lines.push(`  ${MARK.skipped} ${result.name} (${result.reason})`);
        continue;
      }
      lines.push(`  ${MARK[result.status]} ${result.name} (${result.ms.toFixed(0)} ms)`);
      if (result.reason) lines.push(...result.reason.split('\n').map((line) => `         ${line}`));
    }
  }
  const of = (status: CheckResult['status']) => results.filter((result) => result.status === status);
  const [passed, failed, skipped] = [of('passed'), of('failed'), of('skipped')];
  if (failed.length > 0) {
    lines.push(
      '',
      `Failed (${failed.length}):`,
      ...failed.map((result) => `  - ${result.area} › ${result.name}`),
    );
  }
  if (skipped.length > 0) {
    const byReason = new Map<string, number>();
    for (const { reason = '' } of skipped) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    lines.push(
      '',
      `Skipped (${skipped.length}), as not applicable to this target:`,
      ...[...byReason].map(([reason, count]) => `  - ${count} because ${reason}`),
    );
  }
  lines.push(
    '',
    `${results.length} checks: ${passed.length} passed, ${failed.length} failed, ${skipped.length} skipped.`,
  );
  return lines.join('\n');
};
