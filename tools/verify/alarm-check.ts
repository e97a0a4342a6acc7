import {
  type CloudWatchClient,
  DescribeAlarmHistoryCommand,
  DescribeAlarmsCommand,
  type MetricAlarm,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { type CheckStatus, guarded, nameOf, parseJsonObject, result, sleep } from '#tools/verify/check';
import { deploymentGroupsOf } from '#tools/verify/stage-checks';

/** An alarm's notification, delivered: the one check that writes (an alarm's state, and back). */

const DEFAULT_ALARM_WAIT_MS = 120_000;
const DEFAULT_POLL_MS = 5_000;

type ActionOutcome =
  | { readonly state: 'Succeeded'; readonly resource: string }
  | { readonly state: 'Failed'; readonly resource: string; readonly error: string }
  | { readonly state: 'none' };

/** The first action CloudWatch recorded for `alarm` since `since` on one of its own actions' targets. */
const recordedAction = async (
  cloudWatch: CloudWatchClient,
  alarm: MetricAlarm,
  since: Date,
): Promise<ActionOutcome> => {
  const { AlarmHistoryItems = [] } = await cloudWatch.send(
    new DescribeAlarmHistoryCommand({
      AlarmName: alarm.AlarmName,
      HistoryItemType: 'Action',
      StartDate: since,
      ScanBy: 'TimestampAscending',
    }),
  );
  for (const item of AlarmHistoryItems) {
    const data = parseJsonObject(item.HistoryData ?? '') as
      | { actionState?: string; notificationResource?: string; error?: string | null }
      | undefined;
    const resource = data?.notificationResource ?? '';
    if (!alarm.AlarmActions?.includes(resource)) continue;
    if (data?.actionState === 'Succeeded') return { state: 'Succeeded', resource };
    if (data?.actionState === 'Failed')
      return { state: 'Failed', resource, error: data.error ?? 'no error given' };
  }
  return { state: 'none' };
};

/**
 * When CloudWatch recorded the alarm's new state, by CloudWatch's clock (a second early, as the
 * history's StartDate): this machine's clock may be off. This machine's time less a minute if
 * CloudWatch does not say.
 */
const stateChangedAt = async (cloudWatch: CloudWatchClient, alarmName: string): Promise<Date> => {
  const { MetricAlarms = [] } = await cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: [alarmName] }));
  const changed = MetricAlarms[0]?.StateUpdatedTimestamp?.getTime() ?? Date.now() - 60_000;
  return new Date(changed - 1_000);
};

export const alarmNotification = guarded('alarm notification', async (context) => {
  const { clients, stack, timing = {}, tryAlarm = true } = context;
  if (!tryAlarm)
    return [
      result(
        'skip',
        'alarm notification',
        `not tried on ${stack.name}: whoever its alarms notify would get an ALARM; give --alarm to try it (subscribers warned)`,
      ),
    ];
  const names = [...stack.physicalIds('AWS::CloudWatch::Alarm')];
  // An alarm a deployment group watches could roll back a deployment running meanwhile.
  const watched = new Set(
    (await deploymentGroupsOf(context)).flatMap((group) =>
      (group.alarmConfiguration?.alarms ?? []).flatMap((alarm) => (alarm.name ? [alarm.name] : [])),
    ),
  );
  const alarms: MetricAlarm[] = [];
  for (let start = 0; start < names.length; start += 100) {
    const { MetricAlarms = [] } = await clients.cloudWatch.send(
      new DescribeAlarmsCommand({ AlarmNames: names.slice(start, start + 100) }),
    );
    alarms.push(...MetricAlarms);
  }
  const [alarm] = alarms
    .filter(
      (candidate) =>
        candidate.AlarmName &&
        !watched.has(candidate.AlarmName) &&
        candidate.ActionsEnabled &&
        (candidate.AlarmActions ?? []).length > 0 &&
        candidate.StateValue !== 'ALARM',
    )
    .sort((a, b) => (a.AlarmName ?? '').localeCompare(b.AlarmName ?? ''));
  if (!alarm?.AlarmName)
    return [
      result(
        'fail',
        'alarm notification',
        `none of the ${alarms.length} alarms can be tried (each is watched by a deployment, in ALARM already, or has no enabled action): verify again once an alarm is OK`,
      ),
    ];
  const alarmName = alarm.AlarmName;
  const waitMs = timing.alarmWaitMs ?? DEFAULT_ALARM_WAIT_MS;
  const pollMs = timing.pollMs ?? DEFAULT_POLL_MS;
  let outcome: ActionOutcome = { state: 'none' };
  let putBack: string | undefined;
  try {
    await clients.cloudWatch.send(
      new SetAlarmStateCommand({
        AlarmName: alarmName,
        StateValue: 'ALARM',
        StateReason:
          'npm run verify: checking that this alarm notifies its topic; put back to OK right after',
      }),
    );
    const since = await stateChangedAt(clients.cloudWatch, alarmName);
    const deadline = Date.now() + waitMs;
    for (;;) {
      outcome = await recordedAction(clients.cloudWatch, alarm, since);
      if (outcome.state !== 'none' || Date.now() >= deadline) break;
      await sleep(pollMs);
    }
  } finally {
    try {
      await clients.cloudWatch.send(
        new SetAlarmStateCommand({
          AlarmName: alarmName,
          StateValue: 'OK',
          StateReason: 'npm run verify: put back after checking its notification',
        }),
      );
    } catch (error) {
      putBack = `could NOT put it back to OK (${nameOf(error)}): aws cloudwatch set-alarm-state --alarm-name ${alarmName} --state-value OK --state-reason 'after npm run verify'`;
    }
  }
  const back = putBack ?? 'put back to OK';
  const status: CheckStatus = outcome.state === 'Succeeded' && !putBack ? 'pass' : 'fail';
  switch (outcome.state) {
    case 'Succeeded':
      return [
        result(
          status,
          'alarm notification',
          `set ${alarmName} to ALARM: CloudWatch delivered its notification to ${outcome.resource}; ${back}`,
        ),
      ];
    case 'Failed':
      return [
        result(
          'fail',
          'alarm notification',
          `set ${alarmName} to ALARM: CloudWatch failed to notify ${outcome.resource} (${outcome.error}); the topic's policy must let cloudwatch.amazonaws.com publish and its key let CloudWatch use it (infra/constructs/monitoring.ts); ${back}`,
        ),
      ];
    default:
      return [
        result(
          'fail',
          'alarm notification',
          `set ${alarmName} to ALARM: its history shows no action after ${Math.round(waitMs / 1000)} s; look with aws cloudwatch describe-alarm-history --alarm-name ${alarmName} --history-item-type Action; ${back}`,
        ),
      ];
  }
});

/**
 * Every check, in order: the read-only ones first, then the alarm (the one that writes), then the
 * ledger rows left to confirm by hand.
 */
