import { accessLogAndLedger, CONFIRMED_ROWS } from '#tools/verify/access-log-checks';
import { alarmNotification } from '#tools/verify/alarm-check';
import type { CheckResult, CheckStatus, VerifyContext } from '#tools/verify/check';
import { rowsToConfirm } from '#tools/verify/ledger';
import { authorizer, canary, gatewayResponses, stageThrottle, usagePlans } from '#tools/verify/stage-checks';

/**
 * The checks of `npm run verify`, in order: what only AWS can show about a deployed stage. Every
 * call is a read, except the alarm check's two `SetAlarmState`s (to ALARM, and back to OK).
 */

/** The ledger's rows to confirm that no read-only call can: each with the ledger's own way to confirm it. */
const byHandRows = (): CheckResult[] => {
  const automated: readonly string[] = Object.values(CONFIRMED_ROWS);
  return rowsToConfirm()
    .filter((row) => !automated.some((start) => row.behaviour.startsWith(start)))
    .map((row) => ({
      status: 'by hand',
      name: `ledger: ${row.behaviour}`,
      line: `to confirm by hand: ${row.confirmedBy}`,
    }));
};

export const runChecks = async (context: VerifyContext): Promise<CheckResult[]> => {
  const readOnly = await Promise.all(
    [stageThrottle, authorizer, gatewayResponses, usagePlans, canary, accessLogAndLedger].map((check) =>
      check(context),
    ),
  );
  const alarm = await alarmNotification(context);
  return [...readOnly.flat(), ...alarm, ...byHandRows()];
};

const LABEL: Readonly<Record<CheckStatus, string>> = {
  pass: 'PASS',
  fail: 'FAIL',
  skip: 'SKIP',
  'by hand': 'BY HAND',
};

/** One line a check: its status, its name, what it found and what to do. */
export const formatResult = ({ status, name, line }: CheckResult): string =>
  `${LABEL[status].padEnd(7)} ${name}: ${line}`;
