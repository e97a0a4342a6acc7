import {
  type APIGatewayClient,
  GetAuthorizersCommand,
  GetGatewayResponsesCommand,
  GetStageCommand,
  paginateGetUsagePlans,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import {
  type CloudWatchClient,
  DescribeAlarmHistoryCommand,
  DescribeAlarmsCommand,
  type MetricAlarm,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  type CloudWatchLogsClient,
  DescribeLogStreamsCommand,
  GetLogEventsCommand,
  paginateFilterLogEvents,
} from '@aws-sdk/client-cloudwatch-logs';
import {
  type CodeDeployClient,
  type DeploymentGroupInfo,
  GetDeploymentGroupCommand,
  ListDeploymentGroupsCommand,
} from '@aws-sdk/client-codedeploy';
import { authorizer as authorizerContract } from '#functions/authorizer/contract';
import { OPERATIONS } from '#functions/operations';
import { POWERTOOLS } from '#infra/constructs/log-queries';
import { ACCESS_LOG_FIELDS, writesData } from '#infra/constructs/pet-store-api';
import { OUTPUT } from '#infra/outputs';
import { usagePlanName } from '#infra/stage-plans';
import type { StageConfig, Throttle } from '#infra/stages';
import { IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import { GATEWAY_RESPONSES, type GatewayResponseType, gatewayResponse } from '#shared/http/gateway-behaviour';
import { STAGE_NAME } from '#shared/http/paths';
import { newRequestId } from '#tools/lambda/events';
import type { DeployedStack } from '#tools/verify/deployed-stack';
import { type LedgerRow, rowNamed, rowsToConfirm } from '#tools/verify/ledger';

/**
 * The checks of `npm run verify`: what only AWS can show about a deployed stage. Every call is a
 * read, except the alarm check's two `SetAlarmState`s (to ALARM, and back to OK whatever happens).
 */

export type CheckStatus = 'pass' | 'fail' | 'skip' | 'by hand';

export interface CheckResult {
  readonly status: CheckStatus;
  readonly name: string;
  /** What it found and what to do, in one line. */
  readonly line: string;
}

export interface VerifyClients {
  readonly cloudFormation: CloudFormationClient;
  readonly cloudWatch: CloudWatchClient;
  readonly logs: CloudWatchLogsClient;
  readonly apiGateway: APIGatewayClient;
  readonly codeDeploy: CodeDeployClient;
}

export interface VerifyTiming {
  /** How long to wait for the alarm's action to be recorded. @default 120 s */
  readonly alarmWaitMs?: number;
  /** Between two reads of the alarm's history. @default 5 s */
  readonly pollMs?: number;
}

export interface VerifyContext {
  readonly clients: VerifyClients;
  readonly stack: DeployedStack;
  /** What the stage is configured as (infra/stages.ts): what should be deployed. */
  readonly config: Omit<StageConfig, 'env'>;
  readonly timing?: VerifyTiming;
}

/** How many of the access log's last lines are read. */
export const ACCESS_LOG_LINES = 20;

/** The ledger rows a read-only call confirms, by the words their "Behaviour" starts with. */
export const CONFIRMED_ROWS = {
  authorizerRequestId: "The authorizer's invocation has a Lambda request id of its own",
  requestIdShape: 'Its shape: 16 base64 characters',
} as const;

const result = (status: CheckStatus, name: string, line: string): CheckResult => ({ status, name, line });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const nameOf = (error: unknown): string => (error instanceof Error ? error.name : String(error));

const list = (items: readonly string[]): string => items.join(', ');

/** A check that could not read what it needed fails saying which error AWS gave, never the whole run. */
const guarded =
  (name: string, check: (context: VerifyContext) => Promise<CheckResult[]>) =>
  async (context: VerifyContext): Promise<CheckResult[]> => {
    try {
      return await check(context);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return [
        result(
          'fail',
          name,
          `could not read it (${nameOf(error)}: ${message}); the caller needs the read permissions of docs/deploy.md, "What verify needs"`,
        ),
      ];
    }
  };

const restApiIdOf = (stack: DeployedStack): string => {
  const [id] = stack.physicalIds('AWS::ApiGateway::RestApi');
  if (!id) throw new Error(`stack ${stack.name} holds no REST API`);
  return id;
};

const outputOf = (stack: DeployedStack, key: string): string => {
  const value = stack.outputs[key];
  if (!value) throw new Error(`stack ${stack.name} has no output ${key}`);
  return value;
};

// ---------------------------------------------------------------------------------------------
// The stage as the ledger expects it

/** A method's key in a stage's `methodSettings`: its resource path with `/` written `~1`, then its method. */
const methodSettingKey = (path: string, method: string): string => `${path.replaceAll('/', '~1')}/${method}`;

const stageThrottle = guarded('throttle per method', async ({ clients, stack, config }) => {
  const stage = await clients.apiGateway.send(
    new GetStageCommand({ restApiId: restApiIdOf(stack), stageName: STAGE_NAME }),
  );
  // Every method's default, and each write method's own lower limit (infra/constructs/pet-store-api.ts).
  const expected: Record<string, Throttle> = {
    '*/*': config.throttling,
    ...Object.fromEntries(
      OPERATIONS.map(({ operation }) => operation)
        .filter(writesData)
        .map((operation) => [methodSettingKey(operation.path, operation.method), config.writeThrottling]),
    ),
  };
  const differing = Object.entries(expected).flatMap(([key, { rateLimit, burstLimit }]) => {
    const found = stage.methodSettings?.[key];
    return found?.throttlingRateLimit === rateLimit && found.throttlingBurstLimit === burstLimit
      ? []
      : [
          `${key} at rate ${found?.throttlingRateLimit ?? 'none'}, burst ${found?.throttlingBurstLimit ?? 'none'}, not ${rateLimit}, ${burstLimit}`,
        ];
  });
  const { rateLimit, burstLimit } = config.throttling;
  return differing.length === 0
    ? [
        result(
          'pass',
          'throttle per method',
          `stage ${STAGE_NAME} throttles each method (*/*) at rate ${rateLimit}, burst ${burstLimit}, and each write method at its own limit, as infra/stages.ts says`,
        ),
      ]
    : [
        result(
          'fail',
          'throttle per method',
          `stage ${STAGE_NAME} throttles ${list(differing)} (infra/stages.ts): changed outside CloudFormation? deploy the stack again`,
        ),
      ];
});

const authorizer = guarded('authorizer', async ({ clients, stack, config }) => {
  const { items = [] } = await clients.apiGateway.send(
    new GetAuthorizersCommand({ restApiId: restApiIdOf(stack) }),
  );
  const token = items.filter((item) => item.type === 'TOKEN');
  const [only] = token;
  if (token.length !== 1 || !only)
    return [
      result(
        'fail',
        'authorizer',
        `${token.length} TOKEN authorizers on the API, not one: deploy the stack again`,
      ),
    ];
  const identitySource = `method.request.header.${authorizerContract.identitySource}`;
  const validation =
    only.identityValidationExpression === IDENTITY_VALIDATION_EXPRESSION &&
    only.identitySource === identitySource
      ? result(
          'pass',
          'authorizer identity validation',
          `${identitySource} must match ${IDENTITY_VALIDATION_EXPRESSION}, as shared/auth/api-key.ts says`,
        )
      : result(
          'fail',
          'authorizer identity validation',
          `${only.identitySource} must match ${only.identityValidationExpression ?? 'nothing'}, not ${identitySource} and IDENTITY_VALIDATION_EXPRESSION (shared/auth/api-key.ts): malformed headers would reach the function or good ones be refused; deploy the stack again`,
        );
  const ttl = only.authorizerResultTtlInSeconds;
  const cache =
    ttl === config.authorizerCacheTtlSeconds
      ? result(
          'pass',
          'authorizer cache TTL',
          `decisions cached ${ttl} s, as infra/stages.ts says: a revoked key stops within that`,
        )
      : result(
          'fail',
          'authorizer cache TTL',
          `decisions cached ${ttl ?? 'default'} s, not ${config.authorizerCacheTtlSeconds} s (infra/stages.ts): a revoked key works that long; deploy the stack again`,
        );
  return [validation, cache];
});

const gatewayResponses = guarded('gateway responses', async ({ clients, stack }) => {
  const { items = [] } = await clients.apiGateway.send(
    new GetGatewayResponsesCommand({ restApiId: restApiIdOf(stack), limit: 500 }),
  );
  const byType = new Map(items.map((item) => [item.responseType, item]));
  const types = Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[];
  const missing = types.filter((type) => byType.get(type)?.defaultResponse !== false);
  const differing = types
    .filter((type) => !missing.includes(type))
    .filter((type) => byType.get(type)?.statusCode !== String(gatewayResponse(type).status))
    .map((type) => `${type} ${byType.get(type)?.statusCode} (not ${gatewayResponse(type).status})`);
  if (missing.length === 0 && differing.length === 0)
    return [
      result(
        'pass',
        'gateway responses',
        `each of the ${types.length} types of shared/http/gateway-behaviour.ts has its own response and status`,
      ),
    ];
  return [
    result(
      'fail',
      'gateway responses',
      [
        missing.length ? `API Gateway's default answers ${list(missing)}` : '',
        differing.length ? `statuses differ: ${list(differing)}` : '',
      ]
        .filter(Boolean)
        .join('; ') +
        ' (shared/http/gateway-behaviour.ts): clients get another status or shape; deploy the stack again',
    ),
  ];
});

const usagePlans = guarded('usage plans', async ({ clients, stack, config }) => {
  const all: UsagePlan[] = [];
  for await (const page of paginateGetUsagePlans({ client: clients.apiGateway }, {}))
    all.push(...(page.items ?? []));
  const restApiId = restApiIdOf(stack);
  const problems = Object.entries(config.plans.plans).flatMap(([plan, expected]) => {
    const name = usagePlanName(stack.name, plan);
    const found = all.find((item) => item.name === name);
    if (!found) return [`${name} missing`];
    const same =
      found.throttle?.rateLimit === expected.rateLimit &&
      found.throttle?.burstLimit === expected.burstLimit &&
      found.quota?.limit === expected.quota.limit &&
      found.quota?.period === expected.quota.period &&
      (found.apiStages ?? []).some((stage) => stage.apiId === restApiId && stage.stage === STAGE_NAME);
    return same ? [] : [`${name} differs`];
  });
  return problems.length === 0
    ? [
        result(
          'pass',
          'usage plans',
          `${list(Object.keys(config.plans.plans))}: rate, burst and quota as infra/stage-plans.ts says, on stage ${STAGE_NAME}`,
        ),
      ]
    : [result('fail', 'usage plans', `${list(problems)} (infra/stage-plans.ts): deploy the stack again`)];
});

// ---------------------------------------------------------------------------------------------
// CodeDeploy: the canary settings

const deploymentGroupsOf = async ({ clients, stack }: VerifyContext): Promise<DeploymentGroupInfo[]> => {
  const applicationName = outputOf(stack, OUTPUT.deployments);
  const { deploymentGroups = [] } = await clients.codeDeploy.send(
    new ListDeploymentGroupsCommand({ applicationName }),
  );
  const groups = await Promise.all(
    deploymentGroups.map((deploymentGroupName) =>
      clients.codeDeploy.send(new GetDeploymentGroupCommand({ applicationName, deploymentGroupName })),
    ),
  );
  return groups.flatMap(({ deploymentGroupInfo }) => (deploymentGroupInfo ? [deploymentGroupInfo] : []));
};

const canary = guarded('gradual deployments', async (context) => {
  const groups = await deploymentGroupsOf(context);
  const expected = context.config.deployment.deploymentConfigName;
  const wrong = groups.filter(
    (group) =>
      group.deploymentConfigName !== expected ||
      !group.alarmConfiguration?.enabled ||
      (group.alarmConfiguration.alarms ?? []).length === 0 ||
      !group.autoRollbackConfiguration?.enabled,
  );
  if (groups.length > 0 && wrong.length === 0)
    return [
      result(
        'pass',
        'gradual deployments',
        `${groups.length} deployment groups shift traffic by ${expected}, watch their alarms and roll back`,
      ),
    ];
  return [
    result(
      'fail',
      'gradual deployments',
      groups.length === 0
        ? 'the CodeDeploy application has no deployment group: deploy the stack again'
        : `${list(wrong.map((group) => `${group.deploymentGroupName} (${group.deploymentConfigName}${group.alarmConfiguration?.enabled ? '' : ', alarms off'}${group.autoRollbackConfiguration?.enabled ? '' : ', no rollback'})`))} not ${expected} with alarms and rollback (infra/stages.ts): deploy the stack again`,
    ),
  ];
});

// ---------------------------------------------------------------------------------------------
// The access log, and the ledger rows it confirms

type AccessLogLine = Readonly<Record<string, unknown>>;

/** The last lines API Gateway wrote to the stage's access log, newest stream first. */
const lastAccessLogLines = async ({ clients, stack }: VerifyContext): Promise<string[]> => {
  const logGroupName = outputOf(stack, OUTPUT.accessLogs);
  const { logStreams = [] } = await clients.logs.send(
    new DescribeLogStreamsCommand({ logGroupName, orderBy: 'LastEventTime', descending: true, limit: 1 }),
  );
  const [stream] = logStreams;
  if (!stream?.logStreamName) return [];
  const { events = [] } = await clients.logs.send(
    new GetLogEventsCommand({
      logGroupName,
      logStreamName: stream.logStreamName,
      startFromHead: false,
      limit: ACCESS_LOG_LINES,
    }),
  );
  return events.flatMap((event) => (event.message === undefined ? [] : [event.message.trim()]));
};

const parseLine = (text: string): AccessLogLine | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as AccessLogLine)
      : undefined;
  } catch {
    return undefined;
  }
};

const DAY_MS = 86_400_000;

const excerpt = (text: string): string => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** The fields of the stack's access log format: the saved queries (infra/constructs/log-queries.ts) read them. */
const ACCESS_FIELDS = Object.keys(ACCESS_LOG_FIELDS);

const accessLogCheck = async (
  context: VerifyContext,
): Promise<{ results: CheckResult[]; lines: AccessLogLine[] }> => {
  const group = outputOf(context.stack, OUTPUT.accessLogs);
  const texts = await lastAccessLogLines(context);
  if (texts.length === 0)
    return {
      results: [
        result(
          'fail',
          'access log',
          `${group} holds no line yet: run npm run smoke against the stage, then verify again`,
        ),
      ],
      lines: [],
    };
  const lines: AccessLogLine[] = [];
  for (const text of texts) {
    const line = parseLine(text);
    if (!line)
      return {
        results: [
          result(
            'fail',
            'access log',
            `a line of ${group} is not a JSON object: ${excerpt(text)}; the saved queries cannot read it: fix the format (ACCESS_LOG_FIELDS, infra/constructs/pet-store-api.ts)`,
          ),
        ],
        lines: [],
      };
    lines.push(line);
  }
  const missing = ACCESS_FIELDS.filter((field) => lines.some((line) => !(field in line)));
  const latency = 'responseLatency' satisfies keyof typeof ACCESS_LOG_FIELDS;
  const notNumbers = lines.filter(
    (line) => typeof line[latency] === 'string' && !/^(\d+|-)$/.test(line[latency]),
  );
  if (missing.length > 0 || notNumbers.length > 0)
    return {
      results: [
        result(
          'fail',
          'access log',
          `${missing.length ? `lines of ${group} lack ${list(missing)}` : `${notNumbers.length} lines' ${latency} is not a number`}: the saved queries read them; fix the format (ACCESS_LOG_FIELDS, infra/constructs/pet-store-api.ts)`,
        ),
      ],
      lines,
    };
  return {
    results: [
      result(
        'pass',
        'access log',
        `the last ${lines.length} lines of ${group} are JSON objects with every field the saved queries read (${list(ACCESS_FIELDS)})`,
      ),
    ],
    lines,
  };
};

/** What API Gateway's `$context.extendedRequestId` looks like: as long as the local gateway's, ending in `=`. */
const REQUEST_ID_SHAPE = new RegExp(`^[A-Za-z0-9+/]{${newRequestId().length - 1}}=$`);

const requestIdShape = (row: LedgerRow, lines: readonly AccessLogLine[]): CheckResult => {
  const name = `ledger: ${row.behaviour}`;
  if (lines.length === 0) return result('skip', name, 'no access log line to read (above)');
  const odd = lines.map((line) => String(line.requestId)).filter((id) => !REQUEST_ID_SHAPE.test(id));
  return odd.length === 0
    ? result(
        'pass',
        name,
        `the ${lines.length} request ids of the access log have that shape: mark the row documented by this run`,
      )
    : result(
        'fail',
        name,
        `request ids ${list(odd.slice(0, 3))} do not: change the local gateway's newRequestId (tools/lambda/events.ts) and the row`,
      );
};

const authorizerRequestId = async (
  { clients, stack }: VerifyContext,
  row: LedgerRow,
  lines: readonly AccessLogLine[],
): Promise<CheckResult> => {
  const name = `ledger: ${row.behaviour}`;
  if (lines.length === 0) return result('skip', name, 'no access log line to read (above)');
  const field = 'authorizerRequestId' satisfies keyof typeof ACCESS_LOG_FIELDS;
  const id = [...lines]
    .reverse()
    .map((line) => line[field])
    .find((value): value is string => typeof value === 'string' && value !== '' && value !== '-');
  if (!id)
    return result(
      'skip',
      name,
      'no request in the last lines invoked the authorizer (cached decisions): send one with a key unused for the cache TTL, then verify again',
    );
  // A filter reads the group page by page, some pages empty: follow them until the first match.
  let found = false;
  for await (const page of paginateFilterLogEvents(
    { client: clients.logs },
    {
      logGroupName: outputOf(stack, OUTPUT.functionLogs('Authorizer')),
      filterPattern: `{ $.${POWERTOOLS.invocation} = "${id}" }`,
      startTime: Date.now() - DAY_MS,
    },
  )) {
    found = (page.events ?? []).length > 0;
    if (found) break;
  }
  return found
    ? result(
        'pass',
        name,
        `the authorizer's lines of ${id} carry it as ${POWERTOOLS.invocation}: mark the row documented by this run`,
      )
    : result(
        'fail',
        name,
        `no authorizer line has ${POWERTOOLS.invocation} ${id}: the saved query "The authorizer call of a request" finds nothing; fix the row and the query (infra/constructs/log-queries.ts)`,
      );
};

const accessLogAndLedger = async (context: VerifyContext): Promise<CheckResult[]> => {
  const guardedAccess = guarded('access log', async (ctx) => {
    const { results, lines } = await accessLogCheck(ctx);
    const confirmed = await Promise.all([
      authorizerRequestId(ctx, rowNamed(CONFIRMED_ROWS.authorizerRequestId), lines),
      Promise.resolve(requestIdShape(rowNamed(CONFIRMED_ROWS.requestIdShape), lines)),
    ]);
    return [...results, ...confirmed];
  });
  return guardedAccess(context);
};

/** The ledger's rows to confirm that no read-only call can: each with the ledger's own way to confirm it. */
export const byHandRows = (): CheckResult[] => {
  const automated: readonly string[] = Object.values(CONFIRMED_ROWS);
  return rowsToConfirm()
    .filter((row) => !automated.some((start) => row.behaviour.startsWith(start)))
    .map((row) => result('by hand', `ledger: ${row.behaviour}`, `to confirm by hand: ${row.confirmedBy}`));
};

// ---------------------------------------------------------------------------------------------
// An alarm's notification, delivered

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
    const data = parseLine(item.HistoryData ?? '') as
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

const alarmNotification = guarded('alarm notification', async (context) => {
  const { clients, stack, timing = {} } = context;
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
  const since = new Date(Date.now() - 1_000);
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
