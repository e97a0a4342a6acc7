import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#infra/constructs/validation-error';
import { PetStoreStack } from '#infra/pet-store-stack';
import { STAGE_NAMES } from '#infra/stage-names';
import { STAGE_DEFAULTS, type StageConfig } from '#infra/stages';
import { DOCUMENTED_STAGES } from '../support/documented-stages';
import { buildTestApp, synthStages } from '../support/pet-store-app';
import { functionId, onlyResource, referencedIds, resourcesOfType } from '../support/template-queries';

/**
 * Fair use in the synthesized stacks, held to docs/operate.md's numbers (written out in
 * test/support/documented-stages.ts): a usage plan per plan, keys read from the authorizer, every
 * method metered, and the firewall where the stage asks for one.
 */

const { templates } = synthStages();

const AUTHORIZER_DESCRIPTION = 'TOKEN authorizer: Authorization: Bearer <API key>';

describe.each(STAGE_NAMES)('%s', (stageName) => {
  const template = templates[stageName];
  const documented = DOCUMENTED_STAGES[stageName];
  const [apiId] = Object.keys(template.findResources('AWS::ApiGateway::RestApi'));
  const [stageId] = Object.keys(template.findResources('AWS::ApiGateway::Stage'));

  it('takes the API key of every request from the authorizer, never from a header', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('meters every method but the CORS preflights, the 405 mocks included, with a key', () => {
    const methods = resourcesOfType(template, 'AWS::ApiGateway::Method');
    const keyed = methods.filter(([, method]) => method.Properties.HttpMethod !== 'OPTIONS');

    expect(keyed.length).toBeGreaterThan(0);
    for (const [, method] of keyed) expect(method.Properties.ApiKeyRequired).toBe(true);
    for (const [, method] of methods.filter(([, candidate]) => candidate.Properties.HttpMethod === 'OPTIONS'))
      expect(method.Properties.ApiKeyRequired).not.toBe(true);
  });

  it(`has a usage plan per plan (${Object.keys(documented.plans).join(', ')}), with its rate, burst and quota, bound to the stage`, () => {
    const usagePlans = resourcesOfType(template, 'AWS::ApiGateway::UsagePlan').map(
      ([, plan]) => plan.Properties,
    );

    expect(usagePlans).toHaveLength(Object.keys(documented.plans).length);
    for (const [name, plan] of Object.entries(documented.plans)) {
      expect(usagePlans).toContainEqual(
        expect.objectContaining({
          UsagePlanName: `PetStore-${stageName}-${name}`,
          Throttle: { RateLimit: plan.rateLimit, BurstLimit: plan.burstLimit },
          Quota: { Limit: plan.quota.limit, Period: plan.quota.period },
          ApiStages: [expect.objectContaining({ ApiId: { Ref: apiId }, Stage: { Ref: stageId } })],
        }),
      );
    }
  });

  it("gives the authorizer the stage's plans, so its answer names each caller's plan and usage identifier", () => {
    const authorizer =
      template.findResources('AWS::Lambda::Function')[functionId(template, AUTHORIZER_DESCRIPTION)];
    const variables = authorizer?.Properties.Environment.Variables as Record<string, unknown>;

    expect(JSON.parse(String(variables.PETSTORE_PLANS))).toEqual({
      plans: documented.plans,
      defaultPlan: documented.defaultPlan,
    });
  });

  it('gives no other function the plans: the authorizer alone decides a caller’s plan', () => {
    const withPlans = resourcesOfType(template, 'AWS::Lambda::Function').filter(
      ([, fn]) =>
        'PETSTORE_PLANS' in
        ((fn.Properties.Environment as { Variables?: object } | undefined)?.Variables ?? {}),
    );

    expect(withPlans.map(([id]) => id)).toEqual([functionId(template, AUTHORIZER_DESCRIPTION)]);
  });
});

describe.each(STAGE_NAMES)('the firewall of %s', (stageName) => {
  const template = templates[stageName];
  const { firewall } = DOCUMENTED_STAGES[stageName];
  const [, webAcl] = onlyResource(template, 'AWS::WAFv2::WebACL');
  const rules = webAcl.Properties.Rules as {
    Name: string;
    Priority: number;
    Action?: object;
    OverrideAction?: object;
    Statement: Record<string, Record<string, unknown>>;
  }[];

  it('is one REGIONAL web ACL that lets through what no rule blocks', () => {
    expect(webAcl.Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
  });

  it(`blocks an address past ${firewall.requestsPerIp} requests in ${firewall.windowSeconds} s, first of all`, () => {
    expect(rules[0]).toEqual({
      Name: 'RateLimitPerIp',
      Priority: 0,
      Action: { Block: {} },
      Statement: {
        RateBasedStatement: {
          Limit: firewall.requestsPerIp,
          AggregateKeyType: 'IP',
          EvaluationWindowSec: firewall.windowSeconds,
        },
      },
      VisibilityConfig: {
        CloudWatchMetricsEnabled: true,
        MetricName: 'RateLimitPerIp',
        SampledRequestsEnabled: true,
      },
    });
  });

  it("applies AWS's managed common and known-bad-inputs rule groups, leaving the API's own size limits to the API", () => {
    const managed = rules.slice(1).map((rule) => ({
      name: rule.Name,
      override: rule.OverrideAction,
      statement: rule.Statement.ManagedRuleGroupStatement,
    }));

    expect(managed).toEqual([
      {
        name: 'AWSManagedRulesCommonRuleSet',
        override: { None: {} },
        statement: {
          VendorName: 'AWS',
          Name: 'AWSManagedRulesCommonRuleSet',
          RuleActionOverrides: [
            { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
            { Name: 'SizeRestrictions_QUERYSTRING', ActionToUse: { Count: {} } },
          ],
        },
      },
      {
        name: 'AWSManagedRulesKnownBadInputsRuleSet',
        override: { None: {} },
        statement: { VendorName: 'AWS', Name: 'AWSManagedRulesKnownBadInputsRuleSet' },
      },
    ]);
  });

  it('is associated with the v1 stage of the API', () => {
    const [webAclId] = Object.keys(template.findResources('AWS::WAFv2::WebACL'));
    const [apiId] = Object.keys(template.findResources('AWS::ApiGateway::RestApi'));
    const [stageId] = Object.keys(template.findResources('AWS::ApiGateway::Stage'));
    const [, association] = onlyResource(template, 'AWS::WAFv2::WebACLAssociation');

    expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [webAclId, 'Arn'] });
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain('/restapis/');
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain('/stages/');
    expect([...referencedIds(association.Properties.ResourceArn)].sort()).toEqual([apiId, stageId].sort());
  });
});

describe('the firewall of staging', () => {
  /** Staging as configured, but for its firewall setting. */
  const stagingWith = (firewall: StageConfig['firewall']) =>
    Template.fromStack(
      new PetStoreStack(buildTestApp().app, 'PetStore-staging-firewalled', {
        stage: { ...STAGE_DEFAULTS.staging, env: {}, firewall },
      }),
    );

  it('holds one address to half of each method’s throttle (a write’s included), so one source alone cannot starve the keys on any method', () => {
    const { throttling, writeThrottling } = DOCUMENTED_STAGES.staging;
    const { requestsPerIp, windowSeconds } = DOCUMENTED_STAGES.staging.firewall;

    expect(requestsPerIp / windowSeconds).toBe(Math.min(throttling.rateLimit, writeThrottling.rateLimit) / 2);
  });

  it('refuses a write throttle so low that one address within the firewall could take a write method’s whole rate', () => {
    const build = () =>
      new PetStoreStack(buildTestApp().app, 'PetStore-staging-slow-writes', {
        stage: { ...STAGE_DEFAULTS.staging, env: {}, writeThrottling: { rateLimit: 10, burstLimit: 20 } },
      });

    expect(build).toThrow(ValidationError);
    expect(build).toThrow(
      /would let one address take more than half of a method throttled at 10 requests a second/,
    );
  });

  it('is gone once the setting turns it off', () => {
    const template = stagingWith({ enabled: false, requestsPerIp: 3_000, windowSeconds: 300 });

    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });

  it('refuses a per-address limit that would block a client keeping to its plan', () => {
    // partner: 10 requests a second, 3,000 in 5 minutes.
    expect(() => stagingWith({ enabled: true, requestsPerIp: 2_999, windowSeconds: 300 })).toThrow(
      ValidationError,
    );
    expect(() => stagingWith({ enabled: true, requestsPerIp: 2_999, windowSeconds: 300 })).toThrow(
      /would block a client keeping to a plan of 10 requests a second/,
    );
  });
});

describe('plans the stack cannot serve', () => {
  it("are refused when a plan's rate is above the stage's own throttling, naming the plan", () => {
    const plans = {
      plans: { huge: { rateLimit: 500, burstLimit: 1_000, quota: { limit: 1, period: 'DAY' as const } } },
      defaultPlan: 'huge',
    };

    expect(
      () =>
        new PetStoreStack(buildTestApp().app, 'PetStore-broken', {
          stage: { ...STAGE_DEFAULTS.staging, env: {}, plans },
        }),
    ).toThrow(
      /PetStore-broken\/Api\/UsagePlans: plan huge \(rate 500, burst 1000\) is above the stage's throttling/,
    );
  });
});
