import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ValidationError } from '#infra/constructs/validation-error';
import type { FirewallSettings } from '#infra/stages';

const RATE_LIMIT_BOUNDS = { min: 10, max: 2_000_000_000 } as const;

/**
 * Counting, not blocking: the service answers these itself as its contract promises, 413 past 16 KiB
 * (the rule blocks over 8 KB) and 400 naming a long unknown query parameter (over 2 KB).
 */
export const COUNTED_COMMON_RULES = ['SizeRestrictions_BODY', 'SizeRestrictions_QUERYSTRING'] as const;

export interface FirewallProps extends Omit<FirewallSettings, 'enabled'> {
  readonly stage: Stage;
  /** Requests a second; `requestsPerIp` allows at least it over the window. */
  readonly fastestPlanRate: number;
  /** Requests a second; one address may send at most half of it. */
  readonly slowestMethodRate: number;
}

/**
 * `RateLimitPerIp` stops floods of random tokens before each costs an authorizer call and a GetItem;
 * sampled requests show a false positive without logging every request.
 */
export class Firewall extends Construct {
  constructor(scope: Construct, id: string, props: FirewallProps) {
    super(scope, id);
    this.checkRateLimit(props);
    const webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: 'Rate per client IP and AWS managed rules in front of the pet store API',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('PetStoreApi'),
      rules: [
        {
          name: 'RateLimitPerIp',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              limit: props.requestsPerIp,
              aggregateKeyType: 'IP',
              evaluationWindowSec: props.windowSeconds,
            },
          },
          visibilityConfig: visibility('RateLimitPerIp'),
        },
        managedRuleGroup('AWSManagedRulesCommonRuleSet', 1, COUNTED_COMMON_RULES),
        managedRuleGroup('AWSManagedRulesKnownBadInputsRuleSet', 2),
      ],
    });
    const association = new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: webAcl.attrArn,
    });
    association.node.addDependency(props.stage);
  }

  private checkRateLimit(props: FirewallProps): void {
    const { requestsPerIp, windowSeconds, fastestPlanRate, slowestMethodRate } = props;
    if (
      !Number.isInteger(requestsPerIp) ||
      requestsPerIp < RATE_LIMIT_BOUNDS.min ||
      requestsPerIp > RATE_LIMIT_BOUNDS.max
    ) {
      throw new ValidationError(
        `requestsPerIp must be a whole number from ${RATE_LIMIT_BOUNDS.min} to ${RATE_LIMIT_BOUNDS.max}, not ${requestsPerIp}`,
        this,
      );
    }
    if (requestsPerIp < fastestPlanRate * windowSeconds) {
      throw new ValidationError(
        `requestsPerIp ${requestsPerIp} per ${windowSeconds} s would block a client keeping to a plan of ${fastestPlanRate} requests a second (${fastestPlanRate * windowSeconds} per window): raise it`,
        this,
      );
    }
    if (requestsPerIp > (slowestMethodRate / 2) * windowSeconds) {
      throw new ValidationError(
        `requestsPerIp ${requestsPerIp} per ${windowSeconds} s would let one address take more than half of a method throttled at ${slowestMethodRate} requests a second (${(slowestMethodRate / 2) * windowSeconds} per window): lower it, or raise the method's throttle`,
        this,
      );
    }
  }
}

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

const managedRuleGroup = (
  name: string,
  priority: number,
  counted: readonly string[] = [],
): CfnWebACL.RuleProperty => ({
  name,
  priority,
  overrideAction: { none: {} },
  statement: {
    managedRuleGroupStatement: {
      vendorName: 'AWS',
      name,
      ...(counted.length > 0
        ? { ruleActionOverrides: counted.map((rule) => ({ name: rule, actionToUse: { count: {} } })) }
        : {}),
    },
  },
  visibilityConfig: visibility(name),
});
