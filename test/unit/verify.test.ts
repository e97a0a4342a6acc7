import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  APIGatewayClient,
  GetAuthorizersCommand,
  GetGatewayResponsesCommand,
  GetStageCommand,
  GetUsagePlansCommand,
} from '@aws-sdk/client-api-gateway';
import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import {
  CloudWatchClient,
  CloudWatchServiceException,
  DescribeAlarmHistoryCommand,
  DescribeAlarmsCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  CloudWatchLogsClient,
  DescribeLogStreamsCommand,
  FilterLogEventsCommand,
  GetLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import {
  CodeDeployClient,
  GetDeploymentGroupCommand,
  ListDeploymentGroupsCommand,
} from '@aws-sdk/client-codedeploy';
import {
  DeleteRuleCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OUTPUT } from '#infra/outputs';
import { IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import { GATEWAY_RESPONSES, type GatewayResponseType, gatewayResponse } from '#shared/http/gateway-behaviour';
import { CONFIRMED_ROWS } from '#tools/verify/access-log-checks';
import type { VerifyClients } from '#tools/verify/check';
import { rowsToConfirm } from '#tools/verify/ledger';
import { main } from '#tools/verify/verify';
import {
  AUTHORIZER_CALL,
  accessLine,
  answerAsDeployed,
  DEV_STACK,
  methodSettings,
  usagePlans,
} from '../support/deployed-stage';

/**
 * `npm run verify` against the SDK's own request and response shapes (aws-sdk-client-mock stubs
 * each client's `send`): a stage deployed as configured passes, and each thing that can be wrong
 * fails its check in one line. Nothing reaches the network.
 */

const STACK = DEV_STACK;
const TOPIC = 'arn:aws:sns:eu-west-1:111122223333:PetStore-dev-ann-MonitoringAlarmTopic-1';
const TRIED_ALARM = `${STACK}-MonitoringApiLatencyP99-1`;
const DEPLOYMENT_ALARM = `${STACK}-MonitoringListPetsLiveErrors-1`;
const APPLICATION = `${STACK}-DeploymentsApplication-1`;
const ACCESS_LOGS = `${STACK}-ApiAccessLogs-1`;
const AUTHORIZER_LOGS = `${STACK}-AuthorizerLogs-1`;

const cloudFormation = mockClient(CloudFormationClient);
const cloudWatch = mockClient(CloudWatchClient);
const logs = mockClient(CloudWatchLogsClient);
const apiGateway = mockClient(APIGatewayClient);
const codeDeploy = mockClient(CodeDeployClient);
const eventBridge = mockClient(EventBridgeClient);
const sqs = mockClient(SQSClient);
const mocks = [cloudFormation, cloudWatch, logs, apiGateway, codeDeploy, eventBridge, sqs];

const config = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' } };
const clients = (): VerifyClients => ({
  cloudFormation: new CloudFormationClient(config),
  cloudWatch: new CloudWatchClient(config),
  logs: new CloudWatchLogsClient(config),
  apiGateway: new APIGatewayClient(config),
  codeDeploy: new CodeDeployClient(config),
  eventBridge: new EventBridgeClient(config),
  sqs: new SQSClient(config),
});

const actionItem = (actionState: 'Succeeded' | 'Failed', error: string | null = null) => ({
  AlarmName: TRIED_ALARM,
  Timestamp: new Date(),
  HistoryItemType: 'Action' as const,
  HistorySummary: `${actionState === 'Succeeded' ? 'Successfully executed' : 'Failed to execute'} action ${TOPIC}`,
  HistoryData: JSON.stringify({
    error,
    actionState,
    notificationResource: TOPIC,
    stateUpdateTimestamp: Date.now(),
  }),
});

/** When CloudWatch says the tried alarm changed state: by its clock, not this machine's. */
const ALARM_SET_AT = new Date('2026-11-28T06:00:00.000Z');

const BUS = `${STACK}-EventsBus-1`;
/** The stage's API as the events check calls it: set per test to a loopback server. */
let apiUrl = 'http://127.0.0.1:9/v1/';

const OUTPUTS = () => [
  { OutputKey: OUTPUT.apiUrl, OutputValue: apiUrl },
  { OutputKey: OUTPUT.eventBus, OutputValue: BUS },
  { OutputKey: OUTPUT.accessLogs, OutputValue: ACCESS_LOGS },
  { OutputKey: OUTPUT.functionLogs('Authorizer'), OutputValue: AUTHORIZER_LOGS },
  { OutputKey: OUTPUT.deployments, OutputValue: APPLICATION },
  { OutputKey: OUTPUT.alarmTopic, OutputValue: TOPIC },
];

/** A dev stage deployed exactly as infra/stages.ts says, whose alarm notifies its topic. */
const deployedAsConfigured = () => {
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: STACK,
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: new Date(),
        Outputs: OUTPUTS(),
      },
    ],
  });
  answerAsDeployed({ cloudFormation, apiGateway, logs }, [
    ['MonitoringListPetsLiveErrors', 'AWS::CloudWatch::Alarm', DEPLOYMENT_ALARM],
    ['MonitoringApiLatencyP99', 'AWS::CloudWatch::Alarm', TRIED_ALARM],
  ]);
  codeDeploy
    .on(ListDeploymentGroupsCommand)
    .resolves({ applicationName: APPLICATION, deploymentGroups: ['ListPets'] });
  codeDeploy.on(GetDeploymentGroupCommand).resolves({
    deploymentGroupInfo: {
      applicationName: APPLICATION,
      deploymentGroupName: 'ListPets',
      deploymentConfigName: 'CodeDeployDefault.LambdaAllAtOnce',
      alarmConfiguration: { enabled: true, alarms: [{ name: DEPLOYMENT_ALARM }] },
      autoRollbackConfiguration: {
        enabled: true,
        events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM'],
      },
    },
  });
  cloudWatch.on(DescribeAlarmsCommand).resolves({
    MetricAlarms: [DEPLOYMENT_ALARM, TRIED_ALARM].map((AlarmName) => ({
      AlarmName,
      StateValue: 'OK' as const,
      StateUpdatedTimestamp: ALARM_SET_AT,
      ActionsEnabled: true,
      AlarmActions: [TOPIC],
      OKActions: [TOPIC],
    })),
  });
  cloudWatch.on(SetAlarmStateCommand).resolves({});
  cloudWatch.on(DescribeAlarmHistoryCommand).resolves({ AlarmHistoryItems: [actionItem('Succeeded')] });
};

const run = async (argv: readonly string[] = ['--stage', 'dev-ann']) => {
  const out: string[] = [];
  const err: string[] = [];
  // A rule made for the events check is given no time to settle here.
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) }, clients, 0);
  return { code, out, err };
};

const lineOf = (out: readonly string[], name: string) => out.find((line) => line.includes(` ${name}:`)) ?? '';

/** The line of the ledger row whose behaviour starts with `start`. */
const rowLine = (out: readonly string[], start: string) =>
  out.find((line) => line.includes(` ledger: ${start}`)) ?? '';

const alarmStates = () =>
  cloudWatch
    .commandCalls(SetAlarmStateCommand)
    .map((call) => [call.args[0].input.AlarmName, call.args[0].input.StateValue]);

beforeEach(() => {
  for (const mock of mocks) mock.reset();
  deployedAsConfigured();
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => {
  for (const mock of mocks) mock.restore();
});

describe('npm run verify on a stage deployed as configured', () => {
  it('passes every check, one line each, and exits 0', async () => {
    const { code, out, err } = await run();

    expect(err).toEqual([]);
    expect(code).toBe(0);
    for (const name of [
      'throttle per method',
      'authorizer identity validation',
      'authorizer cache TTL',
      'gateway responses',
      'usage plans',
      'gradual deployments',
      'access log',
      'alarm notification',
    ])
      expect(lineOf(out, name)).toMatch(/^PASS /);
    expect(out.filter((line) => line.startsWith('FAIL'))).toEqual([]);
  });

  it("sets an alarm no deployment watches to ALARM, waits for its action in the alarm's history, and puts it back", async () => {
    const { out } = await run();

    expect(alarmStates()).toEqual([
      [TRIED_ALARM, 'ALARM'],
      [TRIED_ALARM, 'OK'],
    ]);
    expect(cloudWatch.commandCalls(DescribeAlarmHistoryCommand)[0]?.args[0].input).toEqual({
      AlarmName: TRIED_ALARM,
      HistoryItemType: 'Action',
      // From the state change CloudWatch recorded, a second early: this machine's clock may be off.
      StartDate: new Date('2026-11-28T05:59:59.000Z'),
      ScanBy: 'TimestampAscending',
    });
    expect(lineOf(out, 'alarm notification')).toContain(
      `delivered its notification to ${TOPIC}; put back to OK`,
    );
  });

  it('writes nothing but the alarm state: every other call is a read', async () => {
    await run();

    const commands = mocks.flatMap((mock) => mock.calls().map((call) => call.args[0].constructor.name));
    expect(commands.filter((name) => !/^(Describe|Get|List|Filter)/.test(name))).toEqual([
      'SetAlarmStateCommand',
      'SetAlarmStateCommand',
    ]);
  });

  it('names every ledger row still to confirm: the ones a read confirms with a check, the others by hand with their command', async () => {
    const { out } = await run();

    for (const row of rowsToConfirm()) {
      const line = lineOf(out, `ledger: ${row.behaviour}`);
      if (Object.values(CONFIRMED_ROWS).some((start) => row.behaviour.startsWith(start)))
        expect(line).toMatch(/^PASS /);
      else expect(line).toBe(`BY HAND ledger: ${row.behaviour}: to confirm by hand: ${row.confirmedBy}`);
    }
    expect(cloudWatch.commandCalls(DescribeAlarmHistoryCommand).length).toBeGreaterThan(0);
    expect(logs.commandCalls(FilterLogEventsCommand)[0]?.args[0].input).toMatchObject({
      logGroupName: AUTHORIZER_LOGS,
      filterPattern: `{ $.function_request_id = "${AUTHORIZER_CALL}" }`,
    });
  });
});

describe('npm run verify on a lean developer stack', () => {
  it('skips the alarm and the gradual deployments a lean stack has none of, saying how to deploy them, checks the rest and exits 0', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: STACK,
          StackStatus: 'CREATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: OUTPUTS().filter(
            ({ OutputKey }) => OutputKey !== OUTPUT.deployments && OutputKey !== OUTPUT.alarmTopic,
          ),
        },
      ],
    });

    const { code, out } = await run();

    expect(code).toBe(0);
    for (const name of ['alarm notification', 'gradual deployments'])
      expect(lineOf(out, name)).toMatch(/^SKIP .+: a lean stack has no .+: deploy it with --full /);
    for (const name of ['throttle per method', 'gateway responses', 'usage plans', 'access log'])
      expect(lineOf(out, name)).toMatch(/^PASS /);
    expect(cloudWatch.calls()).toEqual([]);
    expect(codeDeploy.calls()).toEqual([]);
  });
});

describe('the ledger rows verify confirms', () => {
  it('are each one row the ledger still marks reported or assumed, so a reworded row fails here, not in AWS', () => {
    const toConfirm = rowsToConfirm();

    expect(toConfirm.length).toBeGreaterThan(Object.keys(CONFIRMED_ROWS).length);
    for (const start of Object.values(CONFIRMED_ROWS))
      expect(toConfirm.filter((row) => row.behaviour.startsWith(start))).toHaveLength(1);
  });
});

describe('the alarm notification check', () => {
  it('waits for the action to be recorded, reading the history again, within its limit', async () => {
    vi.useFakeTimers();
    cloudWatch
      .on(DescribeAlarmHistoryCommand)
      .resolvesOnce({ AlarmHistoryItems: [] })
      .resolves({ AlarmHistoryItems: [actionItem('Succeeded')] });

    const running = run();
    await vi.advanceTimersByTimeAsync(10_000);
    const { code, out } = await running;

    expect(code).toBe(0);
    expect(cloudWatch.commandCalls(DescribeAlarmHistoryCommand)).toHaveLength(2);
    expect(lineOf(out, 'alarm notification')).toMatch(/^PASS /);
  });

  it('fails saying CloudWatch could not notify the topic, and why, and still puts the alarm back', async () => {
    cloudWatch.on(DescribeAlarmHistoryCommand).resolves({
      AlarmHistoryItems: [
        actionItem('Failed', 'CloudWatch Alarms is not authorized to perform: SNS:Publish'),
      ],
    });

    const { code, out } = await run();

    expect(code).toBe(1);
    expect(lineOf(out, 'alarm notification')).toMatch(
      /^FAIL {4}alarm notification: set .+ to ALARM: CloudWatch failed to notify .+ \(CloudWatch Alarms is not authorized to perform: SNS:Publish\); the topic's policy must let cloudwatch.amazonaws.com publish .+; put back to OK$/,
    );
    expect(alarmStates().at(-1)).toEqual([TRIED_ALARM, 'OK']);
  });

  it('gives up after its wait when the history never shows the action, saying where to look', async () => {
    vi.useFakeTimers();
    cloudWatch.on(DescribeAlarmHistoryCommand).resolves({ AlarmHistoryItems: [] });

    const running = run(['--stage', 'dev-ann', '--alarm-wait-seconds', '30']);
    await vi.advanceTimersByTimeAsync(60_000);
    const { code, out } = await running;

    expect(code).toBe(1);
    expect(lineOf(out, 'alarm notification')).toBe(
      `FAIL    alarm notification: set ${TRIED_ALARM} to ALARM: its history shows no action after 30 s; look with aws cloudwatch describe-alarm-history --alarm-name ${TRIED_ALARM} --history-item-type Action; put back to OK`,
    );
    expect(alarmStates()).toEqual([
      [TRIED_ALARM, 'ALARM'],
      [TRIED_ALARM, 'OK'],
    ]);
  });

  it('ignores an action on something other than the alarm’s own topic', async () => {
    vi.useFakeTimers();
    const elsewhere = {
      ...actionItem('Succeeded'),
      HistoryData: JSON.stringify({
        actionState: 'Succeeded',
        notificationResource: 'arn:aws:sns:eu-west-1:111122223333:other',
      }),
    };
    cloudWatch.on(DescribeAlarmHistoryCommand).resolves({ AlarmHistoryItems: [elsewhere] });

    const running = run(['--stage', 'dev-ann', '--alarm-wait-seconds', '10']);
    await vi.advanceTimersByTimeAsync(20_000);

    expect(lineOf((await running).out, 'alarm notification')).toContain('shows no action after 10 s');
  });

  it('puts the alarm back even when reading its history fails', async () => {
    cloudWatch.on(DescribeAlarmHistoryCommand).rejects(
      new CloudWatchServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 403 },
        message: 'not authorized to perform: cloudwatch:DescribeAlarmHistory',
      }),
    );

    const { code, out } = await run();

    expect(code).toBe(1);
    expect(lineOf(out, 'alarm notification')).toMatch(
      /^FAIL {4}alarm notification: could not read it \(AccessDeniedException: /,
    );
    expect(alarmStates()).toEqual([
      [TRIED_ALARM, 'ALARM'],
      [TRIED_ALARM, 'OK'],
    ]);
  });

  it('fails with the command to put the alarm back when it cannot', async () => {
    cloudWatch
      .on(SetAlarmStateCommand, { StateValue: 'OK' })
      .rejects(
        new CloudWatchServiceException({ name: 'ThrottlingException', $fault: 'client', $metadata: {} }),
      );

    const { code, out } = await run();

    expect(code).toBe(1);
    expect(lineOf(out, 'alarm notification')).toContain(
      `could NOT put it back to OK (ThrottlingException): aws cloudwatch set-alarm-state --alarm-name ${TRIED_ALARM} --state-value OK`,
    );
  });

  it("tries no alarm of production unless asked with --alarm, since production's subscribers would be paged", async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'PetStore-production',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: OUTPUTS(),
        },
      ],
    });

    const { out } = await run(['--stage', 'production']);
    const asked = await run(['--stage', 'production', '--alarm']);

    expect(lineOf(out, 'alarm notification')).toBe(
      'SKIP    alarm notification: not tried on PetStore-production: whoever its alarms notify would get an ALARM; give --alarm to try it (subscribers warned)',
    );
    expect(lineOf(asked.out, 'alarm notification')).not.toMatch(/^SKIP/);
    expect(alarmStates()).toEqual([
      [TRIED_ALARM, 'ALARM'],
      [TRIED_ALARM, 'OK'],
    ]);
  });

  it('tries no alarm a deployment group watches, nor one in ALARM already', async () => {
    cloudWatch.on(DescribeAlarmsCommand).resolves({
      MetricAlarms: [
        { AlarmName: DEPLOYMENT_ALARM, StateValue: 'OK', ActionsEnabled: true, AlarmActions: [TOPIC] },
        { AlarmName: TRIED_ALARM, StateValue: 'ALARM', ActionsEnabled: true, AlarmActions: [TOPIC] },
      ],
    });

    const { code, out } = await run();

    expect(code).toBe(1);
    expect(alarmStates()).toEqual([]);
    expect(lineOf(out, 'alarm notification')).toContain('none of the 2 alarms can be tried');
  });
});

describe('the access log check', () => {
  it('fails on a line that is not JSON, quoting it', async () => {
    logs
      .on(GetLogEventsCommand)
      .resolves({ events: [{ message: accessLine() }, { message: '{"requestId":"x", "userAgent":"a"b"}' }] });

    const { code, out } = await run();

    expect(code).toBe(1);
    expect(lineOf(out, 'access log')).toMatch(
      /^FAIL {4}access log: a line of .+ is not a JSON object: \{"requestId":"x", "userAgent":"a"b"\}; the saved queries cannot read it/,
    );
  });

  it('fails naming a field the saved queries read that a line lacks', async () => {
    const { errorType: _left, ...line } = JSON.parse(accessLine()) as Record<string, string>;
    logs.on(GetLogEventsCommand).resolves({ events: [{ message: JSON.stringify(line) }] });

    const { out } = await run();

    expect(lineOf(out, 'access log')).toMatch(
      /^FAIL {4}access log: lines of .+ lack errorType: the saved queries read them/,
    );
  });

  it('fails when the latency is not a number, which the slowest-requests query reads as one', async () => {
    logs.on(GetLogEventsCommand).resolves({ events: [{ message: accessLine({ responseLatency: '42ms' }) }] });

    const { out } = await run();

    expect(lineOf(out, 'access log')).toContain("1 lines' responseLatency is not a number");
  });

  it('fails, saying to run the smoke suite first, when the log holds no line yet', async () => {
    logs.on(DescribeLogStreamsCommand).resolves({ logStreams: [] });

    const { out } = await run();

    expect(lineOf(out, 'access log')).toBe(
      `FAIL    access log: ${ACCESS_LOGS} holds no line yet: run npm run smoke against the stage, then verify again`,
    );
  });

  it("fails the ledger row when no authorizer line carries the access log's authorizerRequestId", async () => {
    logs.on(FilterLogEventsCommand).resolves({ events: [] });

    const { out } = await run();

    expect(rowLine(out, CONFIRMED_ROWS.authorizerRequestId)).toMatch(
      /^FAIL .+no authorizer line has function_request_id c0ffee00/,
    );
  });

  it('skips that row, saying why, when every request of the last lines was answered from the cache', async () => {
    logs
      .on(GetLogEventsCommand)
      .resolves({ events: [{ message: accessLine({ authorizerRequestId: '-' }) }] });

    const { out } = await run();

    expect(rowLine(out, CONFIRMED_ROWS.authorizerRequestId)).toMatch(
      /^SKIP .+no request in the last lines invoked the authorizer/,
    );
  });

  it('fails the request id row on an id of another shape', async () => {
    logs
      .on(GetLogEventsCommand)
      .resolves({ events: [{ message: accessLine({ requestId: 'a1b2c3d4-0000-4000-8000-000000000000' }) }] });

    const { out } = await run();

    expect(rowLine(out, CONFIRMED_ROWS.requestIdShape)).toMatch(
      /^FAIL .+request ids a1b2c3d4-0000-4000-8000-000000000000 do not/,
    );
  });
});

describe('the stage as the ledger expects it', () => {
  it('reads the throttle of every method and of each write method, as API Gateway keys them', () => {
    expect(Object.keys(methodSettings())).toEqual(
      expect.arrayContaining(['*/*', '~1pets/POST', '~1pets~1{petId}/DELETE']),
    );
  });

  it('fails when the throttle per method differs from the stage configuration', async () => {
    apiGateway.on(GetStageCommand).resolves({
      methodSettings: methodSettings({ '*/*': { throttlingRateLimit: 100, throttlingBurstLimit: 20 } }),
    });

    const { code, out } = await run();

    expect(code).toBe(1);
    expect(lineOf(out, 'throttle per method')).toBe(
      'FAIL    throttle per method: stage v1 throttles */* at rate 100, burst 20, not 10, 20 (infra/stages.ts): changed outside CloudFormation? deploy the stack again',
    );
  });

  it("fails when a write method lacks its own limit and so takes the stage's default", async () => {
    const { '~1pets/POST': _dropped, ...rest } = methodSettings();
    apiGateway.on(GetStageCommand).resolves({ methodSettings: rest });

    const { out } = await run();

    expect(lineOf(out, 'throttle per method')).toContain(
      'throttles ~1pets/POST at rate none, burst none, not 10, 20',
    );
  });

  it("fails when the authorizer's identity validation expression differs from shared/auth's", async () => {
    apiGateway.on(GetAuthorizersCommand).resolves({
      items: [
        {
          type: 'TOKEN',
          identitySource: 'method.request.header.Authorization',
          identityValidationExpression: '^Bearer .+$',
          authorizerResultTtlInSeconds: 30,
        },
      ],
    });

    const { out } = await run();

    expect(lineOf(out, 'authorizer identity validation')).toMatch(/^FAIL .+must match \^Bearer \.\+\$, not /);
    expect(lineOf(out, 'authorizer cache TTL')).toMatch(/^PASS /);
  });

  it("fails when the authorizer's cache TTL differs, saying how long a revoked key keeps working", async () => {
    apiGateway.on(GetAuthorizersCommand).resolves({
      items: [
        {
          type: 'TOKEN',
          identitySource: 'method.request.header.Authorization',
          identityValidationExpression: IDENTITY_VALIDATION_EXPRESSION,
          authorizerResultTtlInSeconds: 300,
        },
      ],
    });

    const { out } = await run();

    expect(lineOf(out, 'authorizer cache TTL')).toBe(
      'FAIL    authorizer cache TTL: decisions cached 300 s, not 30 s (infra/stages.ts): a revoked key works that long; deploy the stack again',
    );
  });

  it('fails naming a gateway response left to API Gateway’s default, and one with another status', async () => {
    apiGateway.on(GetGatewayResponsesCommand).resolves({
      items: (Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[]).map((responseType) => ({
        responseType,
        statusCode: responseType === 'THROTTLED' ? '500' : String(gatewayResponse(responseType).status),
        defaultResponse: responseType === 'WAF_FILTERED',
      })),
    });

    const { out } = await run();

    expect(lineOf(out, 'gateway responses')).toMatch(
      /^FAIL {4}gateway responses: API Gateway's default answers WAF_FILTERED; statuses differ: THROTTLED 500 \(not 429\)/,
    );
  });

  it('fails when a usage plan differs from the stage’s plans', async () => {
    const [first, ...rest] = usagePlans();
    apiGateway
      .on(GetUsagePlansCommand)
      .resolves({ items: [{ ...first, throttle: { rateLimit: 1000, burstLimit: 2000 } }, ...rest] });

    const { out } = await run();

    expect(lineOf(out, 'usage plans')).toBe(
      `FAIL    usage plans: ${first?.name} differs (infra/stage-plans.ts): deploy the stack again`,
    );
  });

  it('fails when the deployment groups shift traffic otherwise than the stage says (production: a canary)', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'PetStore-production',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [{ OutputKey: OUTPUT.deployments, OutputValue: APPLICATION }],
        },
      ],
    });

    const { out } = await run(['--stage', 'production']);

    expect(lineOf(out, 'gradual deployments')).toBe(
      'FAIL    gradual deployments: ListPets (CodeDeployDefault.LambdaAllAtOnce) not CodeDeployDefault.LambdaCanary10Percent5Minutes with alarms and rollback (infra/stages.ts): deploy the stack again',
    );
  });
});

describe('npm run verify when it cannot run', () => {
  it('says in one sentence that the stack does not exist, and exits 2', async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(
      new CloudFormationServiceException({
        name: 'ValidationError',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
        message: `Stack with id ${STACK} does not exist`,
      }),
    );

    const { code, out, err } = await run();

    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err).toEqual([
      `Cannot verify: No stack ${STACK} in this account and region: deploy it first (npm run deploy -- --stage dev-ann), or set AWS_REGION to the region it is in.`,
    ]);
  });

  it('says a stack whose deployment did not finish cannot be verified', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [{ StackName: STACK, StackStatus: 'ROLLBACK_COMPLETE', CreationTime: new Date() }],
    });

    const { code, err } = await run();

    expect(code).toBe(2);
    expect(err).toEqual([
      `Cannot verify: Stack ${STACK} is ROLLBACK_COMPLETE: use a stack whose deployment has finished (npm run deploy -- --stage dev-ann).`,
    ]);
  });

  it('says in one sentence that there are no credentials, calling nothing', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const noCredentials = () => ({
      ...clients(),
      cloudFormation: new CloudFormationClient({
        region: 'eu-west-1',
        credentials: () => Promise.reject(new Error('Could not load credentials from any providers')),
      }),
    });

    const code = await main(
      ['--stage', 'dev-ann'],
      { out: (line) => out.push(line), err: (line) => err.push(line) },
      noCredentials,
    );

    expect(code).toBe(2);
    expect(err).toEqual([
      'Cannot verify: No usable AWS credentials: sign in (aws sso login --profile <name>) and set AWS_PROFILE to that profile, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    ]);
    expect(mocks.map((mock) => mock.calls().length)).toEqual(mocks.map(() => 0));
  });

  it('refuses a stage that is not one, naming --stage', async () => {
    const { code, err } = await run(['--stage', 'dev-Ann']);

    expect(code).toBe(2);
    expect(err[0]).toMatch(/^The setting --stage is "dev-Ann": it must be staging, production or dev-<name>/);
  });
});

describe('the events check', () => {
  /** The stage's API on loopback: a create answered 201 with pet 42, its removal 204; what it was sent, kept. */
  const startApi = async (createStatus = 201) => {
    const requests: { method: string; path: string; body: string; authorization: string }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        requests.push({
          method: request.method ?? '',
          path: request.url ?? '',
          body,
          authorization: request.headers.authorization ?? '',
        });
        if (request.method === 'POST') {
          response.writeHead(createStatus, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify(createStatus === 201 ? { id: 42, ...JSON.parse(body) } : { code: 'UNAUTHORIZED' }),
          );
        } else response.writeHead(204).end();
      });
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
    deployedAsConfigured();
    return { requests, close: () => new Promise((resolve) => server.close(resolve)) };
  };
  const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/111122223333/PetStore-dev-ann-verify-1';
  const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:111122223333:PetStore-dev-ann-verify-1';
  const RULE_ARN = `arn:aws:events:eu-west-1:111122223333:rule/${BUS}/PetStore-dev-ann-verify-1`;
  const madeForIt = (eventId = 'pet-42-v1') => {
    sqs.on(CreateQueueCommand).resolves({ QueueUrl: QUEUE_URL });
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { QueueArn: QUEUE_ARN } });
    sqs.on(ReceiveMessageCommand).resolves({
      Messages: [{ Body: JSON.stringify({ 'detail-type': 'PetCreated', detail: { eventId } }) }],
    });
    eventBridge.on(PutRuleCommand).resolves({ RuleArn: RULE_ARN });
  };

  it('is skipped without a key, saying how to try it, and writes nothing', async () => {
    const { out } = await run();

    expect(lineOf(out, 'events reach the bus')).toBe(
      `SKIP    events reach the bus: not tried: give --key <an API key of ${STACK}> to create a pet and see its PetCreated reach the bus (through a rule and a queue made for it, removed after with the pet)`,
    );
    expect([...eventBridge.calls(), ...sqs.calls()]).toEqual([]);
  });

  it("with a key, sees a new pet's PetCreated reach the bus through a rule and a queue made for it, then removes the pet, the rule and the queue", async () => {
    const api = await startApi();
    madeForIt();
    try {
      const { code, out } = await run(['--stage', 'dev-ann', '--key', 'psk_verify']);

      expect(code).toBe(0);
      expect(lineOf(out, 'events reach the bus')).toMatch(
        new RegExp(
          `^PASS    events reach the bus: pet-42-v1 \\(PetCreated of a pet made for it\\) reached ${BUS} within \\d+ s$`,
        ),
      );
      const [created, removed] = api.requests;
      const name = JSON.parse(created?.body ?? '{}').name;
      expect(name).toMatch(/^smoke-events-[0-9a-f]{8}$/);
      expect([created?.method, created?.path, created?.authorization]).toEqual([
        'POST',
        '/v1/pets',
        'Bearer psk_verify',
      ]);
      expect([removed?.method, removed?.path]).toEqual(['DELETE', '/v1/pets/42']);
      // The rule matches that pet's creation only, and only its rule may send to the queue.
      const rule = eventBridge.commandCalls(PutRuleCommand)[0]?.args[0].input;
      expect(rule?.EventBusName).toBe(BUS);
      expect(JSON.parse(rule?.EventPattern ?? '{}')).toEqual({
        source: ['pet-store.pets'],
        'detail-type': ['PetCreated'],
        detail: { pet: { name: [name] } },
      });
      const policy = JSON.parse(
        sqs.commandCalls(SetQueueAttributesCommand)[0]?.args[0].input.Attributes?.Policy ?? '{}',
      );
      expect(policy.Statement).toEqual([
        expect.objectContaining({
          Principal: { Service: 'events.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: QUEUE_ARN,
          Condition: { ArnEquals: { 'aws:SourceArn': RULE_ARN } },
        }),
      ]);
      expect(eventBridge.commandCalls(PutTargetsCommand)[0]?.args[0].input.Targets).toEqual([
        { Id: 'verify', Arn: QUEUE_ARN },
      ]);
      expect(eventBridge.commandCalls(RemoveTargetsCommand)).toHaveLength(1);
      expect(eventBridge.commandCalls(DeleteRuleCommand)[0]?.args[0].input).toEqual({
        Name: rule?.Name,
        EventBusName: BUS,
      });
      expect(sqs.commandCalls(DeleteQueueCommand)[0]?.args[0].input).toEqual({ QueueUrl: QUEUE_URL });
    } finally {
      await api.close();
    }
  });

  it('fails when the event does not come within its wait, saying where to look, and still removes what it made', async () => {
    const api = await startApi();
    madeForIt('pet-7-v1');
    try {
      const { code, out } = await run([
        '--stage',
        'dev-ann',
        '--key',
        'psk_verify',
        '--event-wait-seconds',
        '1',
      ]);

      expect(code).toBe(1);
      expect(lineOf(out, 'events reach the bus')).toBe(
        `FAIL    events reach the bus: no PetCreated for pet 42 on ${BUS} within 1 s: look at the publisher's log group, its iterator age and the failures queue (docs/operate.md, "Events not published")`,
      );
      expect(api.requests.map(({ method }) => method)).toEqual(['POST', 'DELETE']);
      expect(eventBridge.commandCalls(DeleteRuleCommand)).toHaveLength(1);
      expect(sqs.commandCalls(DeleteQueueCommand)).toHaveLength(1);
    } finally {
      await api.close();
    }
  });

  it('fails naming what it could not remove, with the command that does', async () => {
    const api = await startApi(401);
    madeForIt();
    sqs.on(DeleteQueueCommand).rejects(new Error('AccessDenied'));
    try {
      const { out } = await run(['--stage', 'dev-ann', '--key', 'psk_wrong']);

      expect(lineOf(out, 'events reach the bus')).toBe(
        `FAIL    events reach the bus: POST /pets answered 401 UNAUTHORIZED: give a key of ${STACK} whose plan allows a write; could NOT remove queue ${QUEUE_URL} (aws sqs delete-queue)`,
      );
      expect(eventBridge.commandCalls(DeleteRuleCommand)).toHaveLength(1);
    } finally {
      await api.close();
    }
  });
});
