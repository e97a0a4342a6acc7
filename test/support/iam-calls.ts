import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { authorizerFunction } from '#functions/authorizer';
import { OPERATIONS } from '#functions/operations';
import { publishPetEventsFunction } from '#functions/publish-pet-events';
import type { ApiFunction } from '#infra/constructs/api-function';
import type { PetStoreStack } from '#infra/pet-store-stack';
import type { TableAccess } from '#shared/adapters/dynamodb/access';
import { ENV } from '#shared/config';
import { AUTHORIZED_METHODS } from '#shared/operations/routes';
import { methodPath } from './template-queries';
import { type Environment, type TemplateJson, TemplateResolver } from './template-resolver';

/**
 * The calls the deployed system makes at run time, derived from a synthesized template (and, for
 * each function, the DynamoDB calls its uses declare, which the stack grants), with
 * every policy AWS evaluates for each: the caller's identity policies and the resource's policy.
 * `evaluate` hands them to an IAM evaluator the project did not write (`@cloud-copilot/iam-simulate`,
 * a devDependency: AGPL-3.0, never bundled).
 */

/** A fake account and region: any would do, the policies name neither. */
export const ENVIRONMENT: Environment = { account: '111122223333', region: 'eu-west-1', partition: 'aws' };

/** An account that is not the stack's. */
export const OTHER_ACCOUNT = '444455556666';

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly Record<string, unknown>[];
}

export interface IamCall {
  /** What makes the call, in words (for test names and failure messages). */
  readonly caller: string;
  /** A role's ARN, or a service principal (`cloudwatch.amazonaws.com`). */
  readonly principal: string;
  readonly action: string;
  readonly resource: string;
  /** The account that owns the resource. */
  readonly resourceAccount: string;
  readonly context: Readonly<Record<string, string>>;
  readonly identityPolicies: readonly { readonly name: string; readonly policy: PolicyDocument }[];
  readonly resourcePolicy?: PolicyDocument;
}

export type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

/** What AWS decides for `call`, as the evaluator sees it; input it cannot evaluate is an error. */
export const evaluate = async (call: IamCall): Promise<Decision> => {
  const result = await runSimulation(
    {
      request: {
        principal: call.principal,
        action: call.action,
        resource: { resource: call.resource, accountId: call.resourceAccount },
        contextVariables: { ...call.context },
      },
      identityPolicies: call.identityPolicies.map(({ name, policy }) => ({ name, policy })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: call.resourcePolicy,
    },
    {},
  );
  if (result.resultType === 'error') {
    throw new Error(`${callName(call)} cannot be evaluated: ${JSON.stringify(result.errors)}`);
  }
  if (result.resultType === 'single' && result.result.ignoredContextKeys?.length) {
    throw new Error(
      `${callName(call)}: the evaluator ignored ${result.result.ignoredContextKeys.join(', ')}`,
    );
  }
  return result.overallResult;
};

export const callName = (call: IamCall): string => `${call.caller}: ${call.action} on ${call.resource}`;

/**
 * AWS managed policies the template attaches by ARN, by that ARN's path; a literal copy of each
 * document, from the AWS Managed Policy Reference Guide page named beside it.
 */
const MANAGED_POLICIES: Readonly<Record<string, PolicyDocument>> = {
  // "AWSCodeDeployRoleForLambdaLimited - AWS Managed Policy" (policy version v1).
  'service-role/AWSCodeDeployRoleForLambdaLimited': {
    Version: '2012-10-17',
    Statement: [
      {
        Action: [
          'cloudwatch:DescribeAlarms',
          'lambda:UpdateAlias',
          'lambda:GetAlias',
          'lambda:GetProvisionedConcurrencyConfig',
        ],
        Resource: '*',
        Effect: 'Allow',
      },
      {
        Action: ['s3:GetObject', 's3:GetObjectVersion'],
        Resource: 'arn:aws:s3:::*/CodeDeploy/*',
        Effect: 'Allow',
      },
      {
        Action: ['s3:GetObject', 's3:GetObjectVersion'],
        Resource: '*',
        Condition: { StringEquals: { 's3:ExistingObjectTag/UseWithCodeDeploy': 'true' } },
        Effect: 'Allow',
      },
      {
        Action: ['lambda:InvokeFunction'],
        Resource: 'arn:aws:lambda:*:*:function:CodeDeployHook_*',
        Effect: 'Allow',
      },
    ],
  },
};

/**
 * What CodeDeploy does with a Lambda deployment group's role on its alias: "Step 2: Create a
 * service role for CodeDeploy" (CodeDeploy User Guide) gives the Lambda policies the permissions
 * to "Read, update, and invoke AWS Lambda functions and aliases" and "Retrieve information about
 * CloudWatch alarms"; the invoking is of hook functions, which these groups have none of. Read and
 * shift the alias. (The policy's `lambda:GetProvisionedConcurrencyConfig` is left out: the
 * evaluator cannot tell which of its resource types an alias ARN is, and refuses to decide.)
 */
export const CODEDEPLOY_ALIAS_ACTIONS = ['lambda:GetAlias', 'lambda:UpdateAlias'] as const;

/**
 * DynamoDB's data-plane actions on a table (DynamoDB's entry of the Service Authorization
 * Reference): what a function's role is refused unless its uses declare it.
 */
export const DYNAMODB_TABLE_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DeleteItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:PartiQLDelete',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLSelect',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PutItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:UpdateItem',
] as const;

/** The actions that name an index as their resource. */
export const DYNAMODB_INDEX_ACTIONS = ['dynamodb:PartiQLSelect', 'dynamodb:Query', 'dynamodb:Scan'] as const;

export interface FunctionGrants {
  /** `listPets`, …, `authorizer`. */
  readonly name: string;
  /** The function's logical id in the template. */
  readonly functionId: string;
  readonly roleArn: string;
  readonly identityPolicies: IamCall['identityPolicies'];
  /** Its uses' declaration, each access resolved to its table's or index's ARN. */
  readonly declared: readonly { readonly resource: string; readonly actions: readonly string[] }[];
  readonly logGroupName: string;
}

export interface RuntimeCalls {
  readonly resolver: TemplateResolver;
  /** API Gateway invoking each integration's alias and the authorizer's alias. */
  readonly invocations: readonly IamCall[];
  /** Every alarm action: the publish to its topic, and CloudWatch's use of the topic's key. */
  readonly alarmPublishes: readonly IamCall[];
  readonly alarmKeyUses: readonly IamCall[];
  /** Each deployment group's role on its alias and its alarms. */
  readonly deployments: readonly IamCall[];
  /** Each function's role: its declared DynamoDB calls and its log group. */
  readonly functionCalls: readonly IamCall[];
  readonly functions: readonly FunctionGrants[];
  /** Every table's ARN and every index's ARN of the stack. */
  readonly tables: readonly string[];
  readonly indexes: readonly string[];
  /** What the events publisher's role is used for, and on what. */
  readonly events: EventCalls;
}

export interface EventCalls {
  readonly publisher: FunctionGrants;
  /** The stream its event source mapping reads, the bus it publishes to, the queue of batches given up on. */
  readonly stream: string;
  readonly bus: string;
  readonly queue: string;
  /** Lambda reading the stream with the role, the publisher's PutEvents, Lambda's send to the on-failure queue. */
  readonly calls: readonly IamCall[];
}

/** Every run-time call of one stage's stack. */
export const runtimeCalls = (stack: PetStoreStack, template: Template): RuntimeCalls => {
  const resolver = new TemplateResolver(template.toJSON() as TemplateJson, stack.stackName, ENVIRONMENT);
  const functions = functionGrants(stack, resolver);
  return {
    resolver,
    invocations: [...integrationInvocations(template, resolver), ...authorizerInvocations(resolver)],
    alarmPublishes: alarmPublishes(resolver),
    alarmKeyUses: alarmKeyUses(resolver),
    deployments: deploymentCalls(resolver),
    functionCalls: functions.flatMap(functionCalls),
    functions,
    tables: resolver.ofType('AWS::DynamoDB::Table').map(([id]) => tableArn(resolver, id)),
    indexes: resolver
      .ofType('AWS::DynamoDB::Table')
      .flatMap(([id, table]) =>
        ((table.Properties?.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map(
          ({ IndexName }) => `${tableArn(resolver, id)}/index/${IndexName}`,
        ),
      ),
    events: eventCalls(resolver, functions),
  };
};

/** The queue's policy as SQS holds it: the statements of every `AWS::SQS::QueuePolicy` naming its URL. */
export const queuePolicy = (resolver: TemplateResolver, queueUrl: string): PolicyDocument =>
  attachedPolicy(resolver, 'AWS::SQS::QueuePolicy', 'Queues', queueUrl);

/**
 * The event source mapping's calls, from the template: "Process DynamoDB records with Lambda"
 * says Lambda reads the stream and sends to the on-failure destination with the function's
 * execution role; the function puts events on the bus its environment names.
 */
const eventCalls = (resolver: TemplateResolver, functions: readonly FunctionGrants[]): EventCalls => {
  const mappings = resolver.ofType('AWS::Lambda::EventSourceMapping');
  const [mapping] = mappings;
  if (!mapping || mappings.length !== 1)
    throw new Error(`Expected one event source mapping, found ${mappings.length}`);
  const [, { Properties: properties = {} }] = mapping;
  // The `live` alias (a Ref) in a full stack; the function itself (its Arn) in a lean one.
  const [target] = (properties.FunctionName as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [];
  const functionId =
    target ??
    resolver.refTarget(resolver.property(resolver.refTarget(properties.FunctionName), 'FunctionName'));
  const publisher = functions.find((fn) => fn.functionId === functionId);
  if (!publisher) throw new Error(`No function ${functionId} behind the mapping`);
  const variables = (resolver.property(functionId, 'Environment') as { Variables: Record<string, unknown> })
    .Variables;
  const busId = resolver.refTarget(variables[ENV.eventBus]);
  const stream = resolver.text(properties.EventSourceArn);
  const queue = resolver.text(
    (properties.DestinationConfig as { OnFailure: { Destination: unknown } }).OnFailure.Destination,
  );
  const [queueId] = resolver
    .ofType('AWS::SQS::Queue')
    .filter(([id]) => resolver.text({ 'Fn::GetAtt': [id, 'Arn'] }) === queue)
    .map(([id]) => id);
  if (!queueId) throw new Error(`No queue ${queue}`);
  const bus = resolver.text({ 'Fn::GetAtt': [busId, 'Arn'] });
  return {
    publisher,
    stream,
    bus,
    queue,
    calls: [
      ...['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'].map((action) =>
        roleCall(publisher, action, stream),
      ),
      roleCall(publisher, 'dynamodb:ListStreams', '*'),
      roleCall(publisher, 'events:PutEvents', bus),
      sendToQueue(resolver, publisher, queue, resolver.text({ Ref: queueId })),
    ],
  };
};

/** Lambda sending a given-up batch to the on-failure queue with the role, over TLS. */
export const sendToQueue = (
  resolver: TemplateResolver,
  fn: FunctionGrants,
  queueArn: string,
  queueUrl: string,
  context: Readonly<Record<string, string>> = { 'aws:SecureTransport': 'true' },
): IamCall => ({
  ...roleCall(fn, 'sqs:SendMessage', queueArn),
  context,
  resourcePolicy: queuePolicy(resolver, queueUrl),
});

const tableArn = (resolver: TemplateResolver, id: string): string =>
  resolver.text({ 'Fn::GetAtt': [id, 'Arn'] });

/** The source keys of a call a service makes on behalf of `sourceArn`: the ARN and its account. */
const sourceContext = (sourceArn: string) => ({
  'aws:SourceArn': sourceArn,
  'aws:SourceAccount': sourceArn.split(':')[4] ?? '',
});

/** The function ARN (qualified or not) a Lambda `FunctionName` names: a name or an ARN. */
const functionArn = (resolver: TemplateResolver, name: string): string =>
  name.startsWith('arn:') ? name : resolver.arn('lambda', `function:${name}`);

/** What an integration or authorizer URI invokes: `…/functions/<function ARN>/invocations`. */
const invokedBy = (uri: string): string => {
  const match = /\/functions\/(.+)\/invocations$/.exec(uri);
  if (!match?.[1]) throw new Error(`Not a Lambda invocation URI: ${uri}`);
  return match[1];
};

/**
 * The resource policy Lambda keeps for one function ARN (an alias's, here: a permission added to
 * an alias is in the alias's policy) from its `AWS::Lambda::Permission`s, each statement as
 * AddPermission writes it: the principal, the action, the qualified function ARN, and the source
 * ARN and account as conditions.
 */
export const lambdaResourcePolicy = (resolver: TemplateResolver, arn: string): PolicyDocument => ({
  Version: '2012-10-17',
  Statement: resolver
    .ofType('AWS::Lambda::Permission')
    .filter(([id]) => functionArn(resolver, resolver.text(resolver.property(id, 'FunctionName'))) === arn)
    .map(([id, permission]) => {
      const properties = resolver.resolve(permission.Properties) as Record<string, string | undefined>;
      const principal = String(properties.Principal);
      return {
        Sid: id,
        Effect: 'Allow',
        Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
        Action: properties.Action,
        Resource: arn,
        ...(properties.SourceArn || properties.SourceAccount
          ? {
              Condition: {
                ...(properties.SourceArn ? { ArnLike: { 'AWS:SourceArn': properties.SourceArn } } : {}),
                ...(properties.SourceAccount
                  ? { StringEquals: { 'AWS:SourceAccount': properties.SourceAccount } }
                  : {}),
              },
            }
          : {}),
      };
    }),
});

/** API Gateway invoking `alias` (a function's `live` alias, or in a lean stack the function) on behalf of `sourceArn`. */
export const invocation = (
  resolver: TemplateResolver,
  caller: string,
  alias: string,
  sourceArn: string,
): IamCall => ({
  caller,
  principal: 'apigateway.amazonaws.com',
  action: 'lambda:InvokeFunction',
  resource: alias,
  resourceAccount: ENVIRONMENT.account,
  context: sourceContext(sourceArn),
  identityPolicies: [],
  resourcePolicy: lambdaResourcePolicy(resolver, alias),
});

const stageNameOf = (resolver: TemplateResolver, restApiId: string): string => {
  const stages = resolver
    .ofType('AWS::ApiGateway::Stage')
    .filter(([id]) => resolver.refTarget(resolver.property(id, 'RestApiId')) === restApiId);
  const [stage] = stages;
  if (!stage || stages.length !== 1)
    throw new Error(`Expected one stage of ${restApiId}, found ${stages.length}`);
  return resolver.text(stage[1].Properties?.StageName);
};

/**
 * Each Lambda proxy integration: API Gateway invokes its alias (a lean stack's: its function) with the method's execute-api ARN
 * as source (`arn:aws:execute-api:<region>:<account>:<api id>/<stage>/<METHOD>/<path>`), a path
 * parameter standing for any value.
 */
const integrationInvocations = (template: Template, resolver: TemplateResolver): IamCall[] =>
  resolver
    .ofType('AWS::ApiGateway::Method')
    .filter(
      ([, method]) => (method.Properties?.Integration as { Type?: string } | undefined)?.Type === 'AWS_PROXY',
    )
    .map(([id, method]) => {
      const properties = method.Properties ?? {};
      const restApiId = resolver.refTarget(properties.RestApiId);
      const httpMethod = String(properties.HttpMethod);
      const path = methodPath(template, { Type: method.Type, Properties: { ...properties } }).replace(
        /\{[^}]+\}/g,
        '7',
      );
      const sourceArn = resolver.arn(
        'execute-api',
        `${resolver.text({ Ref: restApiId })}/${stageNameOf(resolver, restApiId)}/${httpMethod}${path}`,
      );
      const alias = invokedBy(resolver.text((properties.Integration as { Uri: unknown }).Uri));
      return invocation(resolver, `API Gateway (${httpMethod} ${path}, ${id})`, alias, sourceArn);
    });

/** The TOKEN authorizer: API Gateway invokes its alias (or function) with the authorizer's ARN as source. */
const authorizerInvocations = (resolver: TemplateResolver): IamCall[] =>
  resolver.ofType('AWS::ApiGateway::Authorizer').map(([id, authorizer]) => {
    const restApiId = resolver.refTarget(authorizer.Properties?.RestApiId);
    const sourceArn = resolver.arn(
      'execute-api',
      `${resolver.text({ Ref: restApiId })}/authorizers/${resolver.text({ Ref: id })}`,
    );
    const alias = invokedBy(resolver.text(authorizer.Properties?.AuthorizerUri));
    return invocation(resolver, `API Gateway (authorizer ${id})`, alias, sourceArn);
  });

export interface AlarmAction {
  readonly alarmId: string;
  readonly alarmArn: string;
  readonly topicArn: string;
}

/** Every alarm action of the template: the alarm and the topic it notifies. */
export const alarmActions = (resolver: TemplateResolver): AlarmAction[] =>
  resolver.ofType('AWS::CloudWatch::Alarm').flatMap(([alarmId, alarm]) => {
    const alarmArn = resolver.text({ 'Fn::GetAtt': [alarmId, 'Arn'] });
    const actions = ['AlarmActions', 'OKActions', 'InsufficientDataActions'].flatMap(
      (property) => (resolver.resolve(alarm.Properties?.[property] ?? []) as string[]) ?? [],
    );
    return [...new Set(actions)].map((action) => {
      if (!action.startsWith(`arn:${ENVIRONMENT.partition}:sns:`))
        throw new Error(`${alarmId}: no rule for ${action}`);
      return { alarmId, alarmArn, topicArn: action };
    });
  });

/** A resource's policy as its service holds it: the statements of every policy resource of `type` naming it. */
const attachedPolicy = (
  resolver: TemplateResolver,
  type: 'AWS::SNS::TopicPolicy' | 'AWS::SQS::QueuePolicy',
  property: 'Topics' | 'Queues',
  named: string,
): PolicyDocument => ({
  Version: '2012-10-17',
  Statement: resolver
    .ofType(type)
    .filter(([, policy]) => (resolver.resolve(policy.Properties?.[property]) as string[]).includes(named))
    .flatMap(
      ([, policy]) => (resolver.resolve(policy.Properties?.PolicyDocument) as PolicyDocument).Statement,
    ),
});

/** The topic's policy as SNS holds it: the statements of every `AWS::SNS::TopicPolicy` naming it. */
export const topicPolicy = (resolver: TemplateResolver, topicArn: string): PolicyDocument =>
  attachedPolicy(resolver, 'AWS::SNS::TopicPolicy', 'Topics', topicArn);

/** CloudWatch publishing an alarm's state change, over TLS, on behalf of the alarm. */
export const alarmPublish = (
  resolver: TemplateResolver,
  { alarmId, alarmArn, topicArn }: AlarmAction,
  overrides: { readonly context?: Record<string, string>; readonly resourcePolicy?: PolicyDocument } = {},
): IamCall => ({
  caller: `CloudWatch (alarm ${alarmId})`,
  principal: 'cloudwatch.amazonaws.com',
  action: 'sns:Publish',
  resource: topicArn,
  resourceAccount: ENVIRONMENT.account,
  context: { ...sourceContext(alarmArn), 'aws:SecureTransport': 'true', ...overrides.context },
  identityPolicies: [],
  resourcePolicy: overrides.resourcePolicy ?? topicPolicy(resolver, topicArn),
});

const alarmPublishes = (resolver: TemplateResolver): IamCall[] =>
  alarmActions(resolver).map((action) => alarmPublish(resolver, action));

/**
 * SNS encrypts what CloudWatch publishes with the topic's key, on CloudWatch's behalf: the key
 * policy must let `cloudwatch.amazonaws.com` generate data keys and decrypt.
 */
const alarmKeyUses = (resolver: TemplateResolver): IamCall[] =>
  alarmActions(resolver).flatMap(({ alarmId, topicArn }) => {
    const [topicId] = resolver
      .ofType('AWS::SNS::Topic')
      .filter(([id]) => resolver.text({ Ref: id }) === topicArn)
      .map(([id]) => id);
    if (!topicId) throw new Error(`No topic ${topicArn}`);
    const keyArn = resolver.text(resolver.property(topicId, 'KmsMasterKeyId'));
    const [keyId] = resolver
      .ofType('AWS::KMS::Key')
      .filter(([id]) => resolver.text({ 'Fn::GetAtt': [id, 'Arn'] }) === keyArn)
      .map(([id]) => id);
    if (!keyId) throw new Error(`No key ${keyArn}`);
    const keyPolicy = resolver.resolve(resolver.property(keyId, 'KeyPolicy')) as PolicyDocument;
    return ['kms:GenerateDataKey', 'kms:Decrypt'].map((action) => ({
      caller: `CloudWatch (alarm ${alarmId}, through SNS)`,
      principal: 'cloudwatch.amazonaws.com',
      action,
      resource: keyArn,
      resourceAccount: ENVIRONMENT.account,
      // No source keys: whether SNS's calls to KMS carry the alarm's is not documented, so a key
      // policy that needs them would fail here rather than in AWS.
      context: {},
      identityPolicies: [],
      resourcePolicy: keyPolicy,
    }));
  });

/** A role's identity policies: its managed policies (AWS managed ones from MANAGED_POLICIES) and inline policies. */
const roleIdentityPolicies = (resolver: TemplateResolver, roleId: string): IamCall['identityPolicies'] => {
  const managed = ((resolver.resolve(resolver.property(roleId, 'ManagedPolicyArns')) ?? []) as string[]).map(
    (arn) => {
      const path = arn.replace(/^arn:[^:]+:iam::aws:policy\//, '');
      const policy = MANAGED_POLICIES[path];
      if (!policy) throw new Error(`${roleId}: no copy of the managed policy ${arn} (MANAGED_POLICIES)`);
      return { name: path, policy };
    },
  );
  const inline = resolver
    .ofType('AWS::IAM::Policy')
    .filter(([, policy]) =>
      ((policy.Properties?.Roles ?? []) as unknown[]).some((role) => resolver.refTarget(role) === roleId),
    )
    .map(([id, policy]) => ({
      name: id,
      policy: resolver.resolve(policy.Properties?.PolicyDocument) as PolicyDocument,
    }));
  const embedded = (
    (resolver.property(roleId, 'Policies') ?? []) as { PolicyName: string; PolicyDocument: unknown }[]
  ).map(({ PolicyName, PolicyDocument }) => ({
    name: PolicyName,
    policy: resolver.resolve(PolicyDocument) as PolicyDocument,
  }));
  return [...managed, ...inline, ...embedded];
};

const roleIdOf = (roleArn: unknown): string => {
  const [id] = (roleArn as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [];
  if (!id) throw new Error(`Expected a role's Fn::GetAtt Arn, got ${JSON.stringify(roleArn)}`);
  return id;
};

/**
 * Each deployment group's role: the alias CloudFormation hands to it (the alias whose
 * `CodeDeployLambdaAliasUpdate` update policy names the group) and the alarms it rolls back on.
 */
const deploymentCalls = (resolver: TemplateResolver): IamCall[] =>
  resolver.ofType('AWS::CodeDeploy::DeploymentGroup').flatMap(([groupId, group]) => {
    const roleId = roleIdOf(group.Properties?.ServiceRoleArn);
    const roleArn = resolver.text({ 'Fn::GetAtt': [roleId, 'Arn'] });
    const identityPolicies = roleIdentityPolicies(resolver, roleId);
    const call = (action: string, resource: string): IamCall => ({
      caller: `CodeDeploy (${groupId})`,
      principal: roleArn,
      action,
      resource,
      resourceAccount: ENVIRONMENT.account,
      context: {},
      identityPolicies,
    });
    const aliases = resolver
      .ofType('AWS::Lambda::Alias')
      .filter(([, alias]) => {
        const update = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate as
          | { DeploymentGroupName?: unknown }
          | undefined;
        return update !== undefined && resolver.refTarget(update.DeploymentGroupName) === groupId;
      })
      .map(([id]) => resolver.text({ Ref: id }));
    if (aliases.length !== 1) throw new Error(`${groupId} shifts ${aliases.length} aliases`);
    const alarms = (
      (group.Properties?.AlarmConfiguration as { Alarms?: { Name: unknown }[] } | undefined)?.Alarms ?? []
    ).map(({ Name }) => resolver.arn('cloudwatch', `alarm:${resolver.text(Name)}`));
    return [
      ...aliases.flatMap((alias) => CODEDEPLOY_ALIAS_ACTIONS.map((action) => call(action, alias))),
      ...alarms.map((alarm) => call('cloudwatch:DescribeAlarms', alarm)),
    ];
  });

const logicalId = (stack: PetStoreStack, element: unknown): string =>
  stack.getLogicalId(element as CfnElement);

/** Each function of the stack with the declaration its uses make (the one the stack grants from). */
const functionGrants = (stack: PetStoreStack, resolver: TemplateResolver): FunctionGrants[] => {
  const declared: [string, ApiFunction, readonly TableAccess[]][] = [
    ...OPERATIONS.map((root): [string, ApiFunction, readonly TableAccess[]] => {
      const fn = stack.handlers[root.operation.operationId];
      if (!fn) throw new Error(`${stack.stackName} has no function for ${root.operation.operationId}`);
      return [root.operation.operationId, fn, root.data];
    }),
    [authorizerFunction.name, stack.authorizer, authorizerFunction.data],
    [publishPetEventsFunction.name, stack.publisher, publishPetEventsFunction.data],
  ];
  return declared.map(([name, fn, data]) => {
    const functionId = logicalId(stack, fn.function.node.defaultChild);
    const roleId = roleIdOf(resolver.property(functionId, 'Role'));
    const logGroup = (resolver.property(functionId, 'LoggingConfig') as { LogGroup: unknown }).LogGroup;
    return {
      name,
      functionId,
      roleArn: resolver.text({ 'Fn::GetAtt': [roleId, 'Arn'] }),
      identityPolicies: roleIdentityPolicies(resolver, roleId),
      declared: data.map((access) => {
        const table = tableArn(
          resolver,
          logicalId(stack, stack.tables.byKey(access.table).node.defaultChild),
        );
        return { resource: access.index ? `${table}/index/${access.index}` : table, actions: access.actions };
      }),
      logGroupName: resolver.text(logGroup),
    };
  });
};

/** A call by a function's role. */
export const roleCall = (fn: FunctionGrants, action: string, resource: string): IamCall => ({
  caller: `${fn.name}'s role`,
  principal: fn.roleArn,
  action,
  resource,
  resourceAccount: ENVIRONMENT.account,
  context: {},
  identityPolicies: fn.identityPolicies,
});

/** Its declared DynamoDB calls, and Lambda writing its logs to a stream of its own log group. */
const functionCalls = (fn: FunctionGrants): IamCall[] => {
  const { partition, region, account } = ENVIRONMENT;
  const stream = `arn:${partition}:logs:${region}:${account}:log-group:${fn.logGroupName}:log-stream:2026/11/28/[$LATEST]0123456789abcdef`;
  return [
    ...fn.declared.flatMap(({ resource, actions }) =>
      actions.map((action) => roleCall(fn, action, resource)),
    ),
    roleCall(fn, 'logs:CreateLogStream', stream),
    roleCall(fn, 'logs:PutLogEvents', stream),
  ];
};

/** A method of the stage behind the authorizer: its verb, its resource path, and its ARN for a request (`{petId}` as 7). */
export interface AuthorizedMethod {
  readonly method: string;
  readonly path: string;
  readonly arn: string;
}

/**
 * Every method ARN a request can reach the authorizer with, from the template: each method with the
 * CUSTOM authorizer, an `ANY` method standing for each method API Gateway routes that its resource has
 * no method of its own for (AUTHORIZED_METHODS; the request's verb is in the ARN).
 */
export const authorizedMethodArns = (template: Template, resolver: TemplateResolver): AuthorizedMethod[] => {
  const methods = resolver
    .ofType('AWS::ApiGateway::Method')
    .filter(([, method]) => method.Properties?.AuthorizationType === 'CUSTOM')
    .map(([, method]) => {
      const properties = method.Properties ?? {};
      const restApiId = resolver.refTarget(properties.RestApiId);
      return {
        httpMethod: String(properties.HttpMethod),
        path: methodPath(template, { Type: method.Type, Properties: { ...properties } }),
        stage: `${resolver.text({ Ref: restApiId })}/${stageNameOf(resolver, restApiId)}`,
      };
    });
  return methods.flatMap(({ httpMethod, path, stage }) => {
    const own = methods.filter((other) => other.path === path).map((other) => other.httpMethod);
    const verbs =
      httpMethod === 'ANY' ? AUTHORIZED_METHODS.filter((verb) => !own.includes(verb)) : [httpMethod];
    return verbs.map((method) => ({
      method,
      path,
      arn: resolver.arn('execute-api', `${stage}/${method}${path.replace(/\{[^}]+\}/g, '7')}`),
    }));
  });
};

/** The environment the template gives a function, by its logical id. */
export const environmentOf = (resolver: TemplateResolver, functionId: string): Record<string, string> =>
  resolver.resolve(
    (resolver.property(functionId, 'Environment') as { Variables?: unknown } | undefined)?.Variables ?? {},
  ) as Record<string, string>;

/** A caller holding an authorizer's policy, asking to invoke a method ARN: API Gateway's evaluation of it, as IAM's. */
export const methodInvocation = (caller: string, arn: string, policy: PolicyDocument): IamCall => ({
  caller,
  principal: `arn:${ENVIRONMENT.partition}:iam::${ENVIRONMENT.account}:role/caller`,
  action: 'execute-api:Invoke',
  resource: arn,
  resourceAccount: ENVIRONMENT.account,
  context: {},
  identityPolicies: [{ name: 'authorizer-policy', policy }],
});
