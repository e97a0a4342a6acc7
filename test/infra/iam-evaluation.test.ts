import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '#infra/stage-names';
import {
  alarmActions,
  alarmPublish,
  callName,
  type Decision,
  DYNAMODB_INDEX_ACTIONS,
  DYNAMODB_TABLE_ACTIONS,
  ENVIRONMENT,
  evaluate,
  type IamCall,
  invocation,
  OTHER_ACCOUNT,
  roleCall,
  runtimeCalls,
  topicPolicy,
} from '../support/iam-calls';
import { synthDevStage, synthStages } from '../support/pet-store-app';

/**
 * What AWS will let the deployed system do, decided by an IAM evaluator the project did not write
 * (`@cloud-copilot/iam-simulate`) over the synthesized templates: every call the system makes at
 * run time is allowed, and the calls it must not make are denied.
 */

const { stacks, templates } = synthStages();
// A developer's stack (npm run deploy -- --stage dev-<name>) is the same service in either shape:
// the same calls must be allowed, and the same refused; a full one's alarms and deployments too.
const devLean = synthDevStage('dev-iam');
const devFull = synthDevStage('dev-iam', 'full');
const OPERATED = {
  ...Object.fromEntries(
    STAGE_NAMES.map((name) => [name, { stack: stacks[name], template: templates[name] }]),
  ),
  'dev-iam (full)': { stack: devFull.stack, template: devFull.template },
};
const STAGES = { ...OPERATED, 'dev-iam (lean)': { stack: devLean.stack, template: devLean.template } };

/** Each call's decision, keyed by the call, so a failure names every call that went wrong. */
const decisions = async (calls: readonly IamCall[]): Promise<Record<string, Decision>> =>
  Object.fromEntries(await Promise.all(calls.map(async (call) => [callName(call), await evaluate(call)])));

const all = (calls: readonly IamCall[], decision: Decision | 'Denied') =>
  Object.fromEntries(calls.map((call) => [callName(call), decision]));

/** ImplicitlyDenied or ExplicitlyDenied, as one. */
const denied = async (calls: readonly IamCall[]): Promise<Record<string, Decision | 'Denied'>> =>
  Object.fromEntries(
    Object.entries(await decisions(calls)).map(([call, decision]) => [
      call,
      decision === 'Allowed' ? decision : 'Denied',
    ]),
  );

describe.each(Object.entries(STAGES))(
  '%s: what AWS allows at run time',
  (_stageName, { stack, template }) => {
    const calls = runtimeCalls(stack, template);
    const { resolver } = calls;

    it('lets API Gateway invoke what every integration and the authorizer name, from its own methods: the live aliases, or in a lean stack the functions', async () => {
      const invoked = new Set(calls.invocations.map((call) => call.resource));
      const functions = [...Object.values(stack.handlers), stack.authorizer];
      const targets = functions.map((fn) => {
        const id = stack.getLogicalId(fn.invoked.node.defaultChild as CfnElement);
        // An alias's Ref is its ARN; a function's is its name.
        return resolver.resource(id).Type === 'AWS::Lambda::Alias'
          ? resolver.text({ Ref: id })
          : resolver.text({ 'Fn::GetAtt': [id, 'Arn'] });
      });
      expect(invoked).toEqual(new Set(targets));
      expect(targets.every((arn) => arn.endsWith(':live'))).toBe(stack.operations !== undefined);
      expect(await decisions(calls.invocations)).toEqual(all(calls.invocations, 'Allowed'));
    });

    it('refuses an invocation of those from another API or another account', async () => {
      const outside = calls.invocations.flatMap((call) => {
        const sourceArn = call.context['aws:SourceArn'] ?? '';
        const [, apiAndPath = ''] = /:execute-api:[^:]+:\d+:(.*)$/.exec(sourceArn) ?? [];
        const otherApi = apiAndPath.replace(/^[^/]+/, 'otherapi01');
        return [
          invocation(
            resolver,
            `another API (${call.caller})`,
            call.resource,
            resolver.arn('execute-api', otherApi),
          ),
          invocation(
            resolver,
            `another account (${call.caller})`,
            call.resource,
            resolver.arn('execute-api', apiAndPath, ENVIRONMENT.region, OTHER_ACCOUNT),
          ),
        ];
      });
      expect(await denied(outside)).toEqual(all(outside, 'Denied'));
    });

    it("lets each function's role make exactly the DynamoDB calls its root declares, and write to its own log group", async () => {
      const functions = resolver.ofType('AWS::Lambda::Function').map(([id]) => id);
      expect(new Set(calls.functions.map((fn) => fn.functionId))).toEqual(new Set(functions));
      expect(await decisions(calls.functionCalls)).toEqual(all(calls.functionCalls, 'Allowed'));
    });

    it("refuses each function's role every other DynamoDB action, on every table and index of the stack", async () => {
      const undeclared = calls.functions.flatMap((fn) => {
        const isDeclared = (action: string, resource: string) =>
          fn.declared.some((access) => access.resource === resource && access.actions.includes(action));
        return [
          ...calls.tables.flatMap((table) =>
            DYNAMODB_TABLE_ACTIONS.map((action) => [action, table] as const),
          ),
          ...calls.indexes.flatMap((index) =>
            DYNAMODB_INDEX_ACTIONS.map((action) => [action, index] as const),
          ),
        ]
          .filter(([action, resource]) => !isDeclared(action, resource))
          .map(([action, resource]) => roleCall(fn, action, resource));
      });
      expect(undeclared.length).toBeGreaterThan(calls.functions.length * DYNAMODB_TABLE_ACTIONS.length);
      expect(await denied(undeclared)).toEqual(all(undeclared, 'Denied'));
    });
  },
);

describe.each(Object.entries(OPERATED))(
  '%s: what AWS allows its alarms and deployments',
  (_stageName, { stack, template }) => {
    const calls = runtimeCalls(stack, template);
    const { resolver } = calls;

    it("lets every alarm's state changes publish to its topic, and CloudWatch use the topic's key", async () => {
      const alarms = resolver.ofType('AWS::CloudWatch::Alarm').map(([id]) => id);
      expect(new Set(alarmActions(resolver).map((action) => action.alarmId))).toEqual(new Set(alarms));
      expect(await decisions(calls.alarmPublishes)).toEqual(all(calls.alarmPublishes, 'Allowed'));
      expect(await decisions(calls.alarmKeyUses)).toEqual(all(calls.alarmKeyUses, 'Allowed'));
    });

    it('refuses an alarm publish without TLS, explicitly', async () => {
      const plain = alarmActions(resolver).map((action) =>
        alarmPublish(resolver, action, { context: { 'aws:SecureTransport': 'false' } }),
      );
      expect(await decisions(plain)).toEqual(all(plain, 'ExplicitlyDenied'));
    });

    it("refuses another account's alarms and another account's principals publishing to the topic", async () => {
      const [action] = alarmActions(resolver);
      if (!action) throw new Error('No alarm action');
      const otherAlarm = resolver.arn('cloudwatch', 'alarm:theirs', ENVIRONMENT.region, OTHER_ACCOUNT);
      const publisher = `arn:${ENVIRONMENT.partition}:iam::${OTHER_ACCOUNT}:role/publisher`;
      const foreign: IamCall[] = [
        alarmPublish(resolver, action, {
          context: { 'aws:SourceArn': otherAlarm, 'aws:SourceAccount': OTHER_ACCOUNT },
        }),
        {
          caller: `a role of account ${OTHER_ACCOUNT}, allowed sns:Publish on any topic by its own account`,
          principal: publisher,
          action: 'sns:Publish',
          resource: action.topicArn,
          resourceAccount: ENVIRONMENT.account,
          context: { 'aws:SecureTransport': 'true' },
          identityPolicies: [
            {
              name: 'publish-anywhere',
              policy: {
                Version: '2012-10-17',
                Statement: [{ Effect: 'Allow', Action: 'sns:Publish', Resource: '*' }],
              },
            },
          ],
          resourcePolicy: topicPolicy(resolver, action.topicArn),
        },
      ];
      expect(await denied(foreign)).toEqual(all(foreign, 'Denied'));
    });

    it('fails the alarm publish on a topic policy that only denies publishing without TLS (the policy before the fix)', async () => {
      const [action] = alarmActions(resolver);
      if (!action) throw new Error('No alarm action');
      const landed = topicPolicy(resolver, action.topicArn);
      const denyOnly = {
        ...landed,
        Statement: landed.Statement.filter((statement) => statement.Effect === 'Deny'),
      };
      expect(denyOnly.Statement.map((statement) => statement.Sid)).toEqual(['AllowPublishThroughSSLOnly']);
      expect(await evaluate(alarmPublish(resolver, action, { resourcePolicy: denyOnly }))).toBe(
        'ImplicitlyDenied',
      );
    });

    it("lets each deployment group's role read and shift its alias and read its alarms", async () => {
      const groups = resolver.ofType('AWS::CodeDeploy::DeploymentGroup').map(([id]) => `CodeDeploy (${id})`);
      expect(new Set(calls.deployments.map((call) => call.caller))).toEqual(new Set(groups));
      expect(await decisions(calls.deployments)).toEqual(all(calls.deployments, 'Allowed'));
    });
  },
);

describe('dev-iam (lean): no alarm and no deployment', () => {
  it('has no alarm to publish, no topic and no deployment group to allow anything to', () => {
    const calls = runtimeCalls(devLean.stack, devLean.template);

    expect([calls.alarmPublishes, calls.alarmKeyUses, calls.deployments]).toEqual([[], [], []]);
    expect(calls.resolver.ofType('AWS::SNS::Topic')).toEqual([]);
  });
});
