import type { CfnElement } from 'aws-cdk-lib';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CONTRACTS, SCOPE_RESOURCES } from '#functions/operations';
import type { ApiFunction } from '#infra/constructs/api-function';
import { STAGE_NAMES } from '#infra/stage-names';
import { recordFor } from '#shared/auth/api-key';
import { authorize } from '#shared/auth/authorize';
import { ALL_SCOPES, type Scope } from '#shared/auth/scopes';
import { ENV, readPlans, readScopeResources } from '#shared/config';
import { methodScope, scopedMethods, scopeOf } from '#shared/operations/routes';
import { policyAllows } from '#tools/local/authorization';
import {
  type AuthorizedMethod,
  alarmActions,
  alarmPublish,
  authorizedMethodArns,
  callName,
  type Decision,
  DYNAMODB_INDEX_ACTIONS,
  DYNAMODB_TABLE_ACTIONS,
  ENVIRONMENT,
  environmentOf,
  evaluate,
  type IamCall,
  invocation,
  methodInvocation,
  OTHER_ACCOUNT,
  type PolicyDocument,
  roleCall,
  runtimeCalls,
  sendToQueue,
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

/** The scope a method of the stage needs: its operation's, or (a 405 of the ANY mock) its method's. */
const scopeNeeded = ({ method, path }: Pick<AuthorizedMethod, 'method' | 'path'>): Scope => {
  const operation = CONTRACTS.find((candidate) => candidate.method === method && candidate.path === path);
  return operation ? scopeOf(operation) : methodScope(method);
};

/** Each scope on its own, and all of them (a key made without --scope). */
const SCOPE_SETS: readonly (readonly Scope[])[] = [...ALL_SCOPES.map((scope) => [scope]), ALL_SCOPES];

const KEY = 'psk_iam-evaluation';

describe.each(Object.entries(STAGES))(
  '%s: what AWS allows at run time',
  (_stageName, { stack, template }) => {
    const calls = runtimeCalls(stack, template);
    const { resolver } = calls;

    it('lets API Gateway invoke what every integration and the authorizer name, from its own methods: the live aliases, or in a lean stack the functions', async () => {
      const invoked = new Set(calls.invocations.map((call) => call.resource));
      /** What a function is invoked as: an alias's Ref is its ARN; a function's, its name. */
      const arnOf = (fn: ApiFunction) => {
        const id = stack.getLogicalId(fn.invoked.node.defaultChild as CfnElement);
        return resolver.resource(id).Type === 'AWS::Lambda::Alias'
          ? resolver.text({ Ref: id })
          : resolver.text({ 'Fn::GetAtt': [id, 'Arn'] });
      };
      const targets = [...Object.values(stack.handlers), stack.authorizer].map(arnOf);
      expect(invoked).toEqual(new Set(targets));
      expect(targets.every((arn) => arn.endsWith(':live'))).toBe(stack.operations !== undefined);
      // The stream's event source mapping invokes the publisher as the API's functions are invoked, with the publisher's own role.
      const streamInvoked = resolver
        .ofType('AWS::Lambda::EventSourceMapping')
        .map(([id]) => resolver.text(resolver.property(id, 'FunctionName')));
      expect(streamInvoked).toEqual([arnOf(stack.publisher)]);
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

    it("lets the events publisher's role read its stream, put events on its bus and send a given-up batch to its queue", async () => {
      const { events } = calls;

      expect(events.calls.map((call) => `${call.action} on ${call.resource}`)).toEqual([
        `dynamodb:DescribeStream on ${events.stream}`,
        `dynamodb:GetRecords on ${events.stream}`,
        `dynamodb:GetShardIterator on ${events.stream}`,
        'dynamodb:ListStreams on *',
        `events:PutEvents on ${events.bus}`,
        `sqs:SendMessage on ${events.queue}`,
      ]);
      expect(await decisions(events.calls)).toEqual(all(events.calls, 'Allowed'));
    });

    it("refuses the events publisher's role another bus, another queue, another table's stream, and its queue without TLS", async () => {
      const { publisher, bus, queue, stream } = calls.events;
      const queueUrl = `https://sqs.${ENVIRONMENT.region}.amazonaws.com/${ENVIRONMENT.account}/${queue.split(':').at(-1)}`;
      const otherStream = stream.replace(/table\/[^/]+/, 'table/someone-elses');
      const refused: IamCall[] = [
        roleCall(publisher, 'events:PutEvents', resolver.arn('events', 'event-bus/default')),
        roleCall(publisher, 'events:PutEvents', bus.replace(/event-bus\/.+$/, 'event-bus/another')),
        roleCall(publisher, 'sqs:SendMessage', resolver.arn('sqs', 'another-queue')),
        roleCall(publisher, 'sqs:ReceiveMessage', queue),
        roleCall(publisher, 'sqs:DeleteMessage', queue),
        ...['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream'].map((action) =>
          roleCall(publisher, action, otherStream),
        ),
        ...calls.tables
          .map((table) =>
            roleCall(publisher, 'dynamodb:GetRecords', `${table}/stream/2026-12-07T00:00:00.000`),
          )
          .filter((call) => call.resource !== stream),
      ];
      expect(await denied(refused)).toEqual(all(refused, 'Denied'));
      expect(
        await evaluate(sendToQueue(resolver, publisher, queue, queueUrl, { 'aws:SecureTransport': 'false' })),
      ).toBe('ExplicitlyDenied');
    });

    it("allows a key exactly the methods of its scopes, each scope and all, on every method ARN of the stage, from the policy the authorizer answered for any one of them (API Gateway's cached decision)", async () => {
      const methods = authorizedMethodArns(template, resolver);
      const authorizerGrants = calls.functions.find((fn) => fn.name === 'authorizer');
      const environment = environmentOf(resolver, authorizerGrants?.functionId ?? '');
      const plans = readPlans(ENV.plans, environment[ENV.plans] ?? '');
      const scopes = readScopeResources(ENV.scopes, environment[ENV.scopes] ?? '');
      expect(new Set(methods.map(({ method, path }) => `${method} ${path}`))).toEqual(
        new Set(scopedMethods(CONTRACTS).map(({ method, path }) => `${method} ${path}`)),
      );

      for (const held of SCOPE_SETS) {
        const apiKeys = { findByHash: async () => ({ ...recordFor(KEY, 'iam'), scopes: held }) };
        const answers = await Promise.all(
          methods.map(({ arn }) => authorize(apiKeys, `Bearer ${KEY}`, arn, plans, scopes)),
        );
        const [first] = answers;
        for (const answer of answers) expect(answer.policyDocument).toEqual(first?.policyDocument);
        const policy = first?.policyDocument as unknown as PolicyDocument;
        const invocations = methods.map((method) =>
          methodInvocation(`a key of ${held.join(' ')}`, method.arn, policy),
        );

        expect(await decisions(invocations)).toEqual(
          Object.fromEntries(
            methods.map((method, index) => [
              callName(invocations[index] as IamCall),
              held.includes(scopeNeeded(method)) ? 'Allowed' : 'ImplicitlyDenied',
            ]),
          ),
        );
      }
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

describe("the local gateway's evaluation of an authorizer's policy", () => {
  const stage = `arn:${ENVIRONMENT.partition}:execute-api:${ENVIRONMENT.region}:${ENVIRONMENT.account}:a1b2c3d4e5/v1`;
  const arns = scopedMethods(CONTRACTS).map(
    ({ method, path }) => `${stage}/${method}${path.replace(/\{[^}]+\}/g, '7')}`,
  );
  const allow = (Resource: string | string[], Action: string | string[] = 'execute-api:Invoke') => ({
    Effect: 'Allow',
    Action,
    Resource,
  });
  const deny = (Resource: string | string[]) => ({ Effect: 'Deny', Action: 'execute-api:Invoke', Resource });
  const scopePolicy = (scopes: readonly Scope[]) =>
    allow(scopes.flatMap((scope) => SCOPE_RESOURCES[scope].map((resource) => `${stage}/${resource}`)));

  const POLICIES: Record<string, PolicyDocument['Statement']> = {
    'each scope the authorizer answers for read:pets': [scopePolicy(['read:pets'])],
    'the one for write:pets': [scopePolicy(['write:pets'])],
    'the one for every scope': [scopePolicy(ALL_SCOPES)],
    'the whole stage, but a Deny of one route': [allow(`${stage}/*/*`), deny(`${stage}/DELETE/pets/*`)],
    'a Deny of the whole stage beside an Allow of one method': [
      deny(`${stage}/*`),
      allow(`${stage}/GET/pets`),
    ],
    'wildcards in the verb and one character': [allow(`${stage}/*/pets`), allow(`${stage}/P?T*/pets/?`)],
    'a wildcard in the region and the account': [allow(`arn:aws:execute-api:*:*:a1b2c3d4e5/v1/GET/*`)],
    'another API and another stage': [allow('arn:aws:execute-api:*:*:otherapi01/v1/*'), allow(`${stage}x/*`)],
    'actions by wildcard, in another case, or of another service': [
      allow(`${stage}/GET/*`, 'execute-api:*'),
      allow(`${stage}/POST/*`, 'EXECUTE-API:invoke'),
      allow(`${stage}/PATCH/*`, '*'),
      allow(`${stage}/DELETE/*`, ['s3:GetObject', 'execute-api:ManageConnections']),
    ],
    'a path in another case': [allow(`${stage}/GET/Pets`)],
    'no statement': [],
  };

  it.each(Object.entries(POLICIES))(
    'decides as IAM does (explicit Deny, then Allow, else implicit deny) on every method ARN of the stage: %s',
    async (_name, Statement) => {
      const policy = { Version: '2012-10-17', Statement };
      const result = {
        principalId: 'key-1',
        policyDocument: policy,
      } as unknown as APIGatewayAuthorizerResult;
      const byIam = await Promise.all(arns.map((arn) => evaluate(methodInvocation('a key', arn, policy))));

      expect(Object.fromEntries(arns.map((arn) => [arn, policyAllows(result, arn)]))).toEqual(
        Object.fromEntries(arns.map((arn, index) => [arn, byIam[index] === 'Allowed'])),
      );
    },
  );
});
