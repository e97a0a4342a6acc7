import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ValidationError } from '#infra/constructs/validation-error';
import type { FirewallSettings } from '#infra/stages';

const RATE_LIMIT_BOUNDS = { min: 10, max: 2_000_000_000 } as const;

/**
 * Rules of AWS's common rule set left counting instead of blocking: the service answers these
 * requests itself, with the Error object and the status its contract promises, so the firewall
 * must not answer them first with a 403.
 *
 * - `SizeRestrictions_BODY` blocks bodies over 8 KB; the API accepts 16 KiB and answers 413
 *   `PAYLOAD_TOO_LARGE` past it.
 * - `SizeRestrictions_QUERYSTRING` blocks query strings over 2 KB; the function answers a long
 *   unknown query parameter with a 400 `VALIDATION_FAILED` naming it (the contract suite checks so).
 */
export const COUNTED_COMMON_RULES = ['SizeRestrictions_BODY', 'SizeRestrictions_QUERYSTRING'] as const;

export interface FirewallProps extends Omit<FirewallSettings, 'enabled'> {
  readonly stage: Stage;
  /**
   * The fastest any key may send within its plan, in requests a second: `requestsPerIp` must allow
   * at least that over the window, or WAF would block a client's server that keeps to its plan.
   */
  readonly fastestPlanRate: number;
  /**
   * The lowest throttle of any method of the stage, in requests a second (API Gateway throttles
   * each method on its own): one address may send at most half of it, so that no single source
   * can take a method's whole rate from the keys.
   */
  readonly slowestMethodRate: number;
}

/**
 * A WAFv2 web ACL in front of a REST API stage: `RateLimitPerIp` (a flood of random bearer tokens
 * stops here, before each costs an authorizer invocation and a GetItem), then AWS's common and
 * known-bad-inputs rule groups. A blocked request gets the `WAF_FILTERED` gateway response (403).
 * Every rule keeps sampled requests, so a false positive can be found without logging every request.
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
    // The stage must exist before a web ACL can be associated with it.
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
