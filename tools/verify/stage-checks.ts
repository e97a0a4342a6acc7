import {
  GetAuthorizersCommand,
  GetGatewayResponsesCommand,
  GetStageCommand,
  paginateGetUsagePlans,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import {
  type DeploymentGroupInfo,
  GetDeploymentGroupCommand,
  ListDeploymentGroupsCommand,
} from '@aws-sdk/client-codedeploy';
import { authorizer as authorizerContract } from '#functions/authorizer';
import { OPERATIONS } from '#functions/operations';
import { OUTPUT } from '#infra/outputs';
import { usagePlanName } from '#infra/stage-plans';
import type { Throttle } from '#infra/stages';
import { IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import { GATEWAY_RESPONSES, type GatewayResponseType, gatewayResponse } from '#shared/http/gateway-behaviour';
import { STAGE_NAME } from '#shared/http/paths';
import { writesData } from '#shared/operations/routes';
import {
  check,
  fail,
  leanSkip,
  list,
  outputOf,
  pass,
  restApiIdOf,
  type VerifyContext,
} from '#tools/verify/check';

/** The stage as the ledger expects it, read from API Gateway and CodeDeploy. */

/** A method's key in a stage's `methodSettings`: its resource path with `/` written `~1`, then its method. */
const methodSettingKey = (path: string, method: string): string => `${path.replaceAll('/', '~1')}/${method}`;

export const stageThrottle = check('throttle per method', async ({ clients, stack, config }) => {
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
    ? pass(
        `stage ${STAGE_NAME} throttles each method (*/*) at rate ${rateLimit}, burst ${burstLimit}, and each write method at its own limit, as infra/stages.ts says`,
      )
    : fail(
        `stage ${STAGE_NAME} throttles ${list(differing)} (infra/stages.ts): changed outside CloudFormation? deploy the stack again`,
      );
});

export const authorizer = check('authorizer', async ({ clients, stack, config }) => {
  const { items = [] } = await clients.apiGateway.send(
    new GetAuthorizersCommand({ restApiId: restApiIdOf(stack) }),
  );
  const token = items.filter((item) => item.type === 'TOKEN');
  const [only] = token;
  if (token.length !== 1 || !only)
    return fail(`${token.length} TOKEN authorizers on the API, not one: deploy the stack again`);
  const identitySource = `method.request.header.${authorizerContract.identitySource}`;
  const validation =
    only.identityValidationExpression === IDENTITY_VALIDATION_EXPRESSION &&
    only.identitySource === identitySource
      ? pass(`${identitySource} must match ${IDENTITY_VALIDATION_EXPRESSION}, as shared/auth/api-key.ts says`)
      : fail(
          `${only.identitySource} must match ${only.identityValidationExpression ?? 'nothing'}, not ${identitySource} and IDENTITY_VALIDATION_EXPRESSION (shared/auth/api-key.ts): malformed headers would reach the function or good ones be refused; deploy the stack again`,
        );
  const ttl = only.authorizerResultTtlInSeconds;
  const cache =
    ttl === config.authorizerCacheTtlSeconds
      ? pass(`decisions cached ${ttl} s, as infra/stages.ts says: a revoked key stops within that`)
      : fail(
          `decisions cached ${ttl ?? 'default'} s, not ${config.authorizerCacheTtlSeconds} s (infra/stages.ts): a revoked key works that long; deploy the stack again`,
        );
  return [
    { name: 'authorizer identity validation', ...validation },
    { name: 'authorizer cache TTL', ...cache },
  ];
});

export const gatewayResponses = check('gateway responses', async ({ clients, stack }) => {
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
    return pass(
      `each of the ${types.length} types of shared/http/gateway-behaviour.ts has its own response and status`,
    );
  return fail(
    [
      missing.length ? `API Gateway's default answers ${list(missing)}` : '',
      differing.length ? `statuses differ: ${list(differing)}` : '',
    ]
      .filter(Boolean)
      .join('; ') +
      ' (shared/http/gateway-behaviour.ts): clients get another status or shape; deploy the stack again',
  );
});

export const usagePlans = check('usage plans', async ({ clients, stack, config }) => {
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
    ? pass(
        `${list(Object.keys(config.plans.plans))}: rate, burst and quota as infra/stage-plans.ts says, on stage ${STAGE_NAME}`,
      )
    : fail(`${list(problems)} (infra/stage-plans.ts): deploy the stack again`);
});

export const deploymentGroupsOf = async ({
  clients,
  stack,
}: VerifyContext): Promise<DeploymentGroupInfo[]> => {
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

export const canary = check('gradual deployments', async (context) => {
  if (context.config.shape === 'lean') return leanSkip('live alias or deployment group');
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
    return pass(
      `${groups.length} deployment groups shift traffic by ${expected}, watch their alarms and roll back`,
    );
  return fail(
    groups.length === 0
      ? 'the CodeDeploy application has no deployment group: deploy the stack again'
      : `${list(wrong.map((group) => `${group.deploymentGroupName} (${group.deploymentConfigName}${group.alarmConfiguration?.enabled ? '' : ', alarms off'}${group.autoRollbackConfiguration?.enabled ? '' : ', no rollback'})`))} not ${expected} with alarms and rollback (infra/stages.ts): deploy the stack again`,
  );
});
