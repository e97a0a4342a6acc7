import {
  type CloudWatchClient,
  DescribeAlarmHistoryCommand,
  DescribeAlarmsCommand,
  type MetricAlarm,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { check, fail, leanSkip, parseJsonObject, pass, skip, sleep } from '#tools/verify/check';
import { deploymentGroupsOf } from '#tools/verify/stage-checks';

/** An alarm's notification, delivered: the one check that writes (an alarm's state, and back). */

const POLL_MS = 5_000;

/** An action CloudWatch executed: on which of the alarm's targets, and its error if it failed. */
type Action = { readonly resource: string; readonly error?: string };

/** The first action CloudWatch recorded for `alarm` since `since` on one of its own actions' targets. */
const recordedAction = async (
  cloudWatch: CloudWatchClient,
  alarm: MetricAlarm,
  since: Date,
): Promise<Action | undefined> => {
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
    if (data?.actionState === 'Succeeded') return { resource };
    if (data?.actionState === 'Failed') return { resource, error: data.error ?? 'no error given' };
  }
  return undefined;
};

/** When CloudWatch recorded the new state, by its clock (this one may be off), else now less a minute. */
const stateChangedAt = async (cloudWatch: CloudWatchClient, alarmName: string): Promise<Date> => {
  const { MetricAlarms = [] } = await cloudWatch.send(new DescribeAlarmsCommand({ AlarmNames: [alarmName] }));
  const changed = MetricAlarms[0]?.StateUpdatedTimestamp?.getTime() ?? Date.now() - 60_000;
  return new Date(changed - 1_000);
};

export const alarmNotification = check('alarm notification', async (context) => {
  const { clients, stack, alarmWaitMs, tryAlarm, config } = context;
  if (config.shape === 'lean') return leanSkip('alarm, topic or dashboard');
  if (!tryAlarm)
    return skip(
      `not tried on ${stack.name}: whoever its alarms notify would get an ALARM; give --alarm to try it (subscribers warned)`,
    );
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
    return fail(
      `none of the ${alarms.length} alarms can be tried (each is watched by a deployment, in ALARM already, or has no enabled action): verify again once an alarm is OK`,
    );
  const alarmName = alarm.AlarmName;
  let action: Action | undefined;
  let notPutBack: string | undefined;
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
    const deadline = Date.now() + alarmWaitMs;
    for (;;) {
      action = await recordedAction(clients.cloudWatch, alarm, since);
      if (action || Date.now() >= deadline) break;
      await sleep(POLL_MS);
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
      const reason = error instanceof Error ? error.name : String(error);
      notPutBack = `could NOT put it back to OK (${reason}): aws cloudwatch set-alarm-state --alarm-name ${alarmName} --state-value OK --state-reason 'after npm run verify'`;
    }
  }
  const set = `set ${alarmName} to ALARM`;
  const back = notPutBack ?? 'put back to OK';
  if (!action)
    return fail(
      `${set}: its history shows no action after ${Math.round(alarmWaitMs / 1000)} s; look with aws cloudwatch describe-alarm-history --alarm-name ${alarmName} --history-item-type Action; ${back}`,
    );
  if (action.error !== undefined)
    return fail(
      `${set}: CloudWatch failed to notify ${action.resource} (${action.error}); the topic's policy must let cloudwatch.amazonaws.com publish and its key let CloudWatch use it (infra/constructs/monitoring.ts); ${back}`,
    );
  const line = `${set}: CloudWatch delivered its notification to ${action.resource}; ${back}`;
  return notPutBack ? fail(line) : pass(line);
});
