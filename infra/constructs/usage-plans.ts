import { Period, type RestApi, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { ValidationError } from '#infra/constructs/validation-error';
import { usagePlanName } from '#infra/stage-plans';
import type { Plans, QuotaPeriod } from '#shared/fair-use/plans';

const PERIOD: Readonly<Record<QuotaPeriod, Period>> = { DAY: Period.DAY, MONTH: Period.MONTH };

export interface UsagePlansProps {
  /** The REST API whose deployment stage the usage plans meter; its key source must be AUTHORIZER. */
  readonly api: RestApi;
  /** The stage's plans: one usage plan each. */
  readonly plans: Plans;
  /**
   * The stage's own throttle, which bounds all keys together: a plan above it could never be
   * reached, so the synth refuses one.
   */
  readonly stageThrottling: { readonly rateLimit: number; readonly burstLimit: number };
  /** What the usage plans' names start with (`<prefix>-<plan>`): the stack's name, so stages never share one. */
  readonly namePrefix: string;
}

/**
 * One API Gateway usage plan per plan of the stage, bound to the API's deployment stage, with the
 * plan's rate, burst and quota. A key is metered by the usage plan of its plan through its usage
 * identifier, an API Gateway API key the keys command puts in that usage plan and the authorizer
 * returns as `usageIdentifierKey`. Usage plans are best effort: API Gateway may let a client a
 * little past them (docs/deploy.md, "Plans").
 */
export class UsagePlans extends Construct {
  /** Each plan's usage plan, by plan name. */
  readonly byName: Readonly<Record<string, UsagePlan>>;

  constructor(scope: Construct, id: string, props: UsagePlansProps) {
    super(scope, id);
    this.byName = Object.fromEntries(
      Object.entries(props.plans.plans).map(([name, plan]) => {
        if (
          plan.rateLimit > props.stageThrottling.rateLimit ||
          plan.burstLimit > props.stageThrottling.burstLimit
        ) {
          throw new ValidationError(
            `plan ${name} (rate ${plan.rateLimit}, burst ${plan.burstLimit}) is above the stage's throttling (rate ${props.stageThrottling.rateLimit}, burst ${props.stageThrottling.burstLimit})`,
            this,
          );
        }
        const usagePlan = new UsagePlan(this, `Plan-${name}`, {
          name: usagePlanName(props.namePrefix, name),
          description: `Pet store plan ${name}: ${plan.rateLimit} requests a second (burst ${plan.burstLimit}), ${plan.quota.limit} a ${plan.quota.period.toLowerCase()}`,
          throttle: { rateLimit: plan.rateLimit, burstLimit: plan.burstLimit },
          quota: { limit: plan.quota.limit, period: PERIOD[plan.quota.period] },
          apiStages: [{ api: props.api, stage: props.api.deploymentStage }],
        });
        return [name, usagePlan];
      }),
    );
  }
}
