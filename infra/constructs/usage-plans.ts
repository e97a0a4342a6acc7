import { Period, type RestApi, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { ValidationError } from '#infra/constructs/validation-error';
import { usagePlanName } from '#infra/stage-plans';
import type { Throttle } from '#infra/stages';
import type { Plans, QuotaPeriod } from '#shared/fair-use/plans';

const PERIOD: Readonly<Record<QuotaPeriod, Period>> = { DAY: Period.DAY, MONTH: Period.MONTH };

export interface UsagePlansProps {
  /** Its key source must be AUTHORIZER. */
  readonly api: RestApi;
  readonly plans: Plans;
  /** Per method, for all keys together: a plan above it could never be reached. */
  readonly stageThrottling: Throttle;
  /** The stack's name, so stages never share one. */
  readonly namePrefix: string;
}

/** Keys are metered by the authorizer's `usageIdentifierKey`; best effort (docs/operate.md, "Plans"). */
export class UsagePlans extends Construct {
  constructor(scope: Construct, id: string, props: UsagePlansProps) {
    super(scope, id);
    const { rateLimit, burstLimit } = props.stageThrottling;
    for (const [name, plan] of Object.entries(props.plans.plans)) {
      if (plan.rateLimit > rateLimit || plan.burstLimit > burstLimit) {
        throw new ValidationError(
          `plan ${name} (rate ${plan.rateLimit}, burst ${plan.burstLimit}) is above the stage's throttling (rate ${rateLimit}, burst ${burstLimit})`,
          this,
        );
      }
      new UsagePlan(this, `Plan-${name}`, {
        name: usagePlanName(props.namePrefix, name),
        description: `Pet store plan ${name}: ${plan.rateLimit} requests a second (burst ${plan.burstLimit}), ${plan.quota.limit} a ${plan.quota.period.toLowerCase()}`,
        throttle: { rateLimit: plan.rateLimit, burstLimit: plan.burstLimit },
        quota: { limit: plan.quota.limit, period: PERIOD[plan.quota.period] },
        apiStages: [{ api: props.api, stage: props.api.deploymentStage }],
      });
    }
  }
}
