import { type Plan, QUOTA_PERIOD_SECONDS } from '#shared/fair-use/plans';

/** draft-ietf-httpapi-ratelimit-headers (revisions 10, 11); no `RateLimit`: API Gateway keeps the counts. */

export const RATE_LIMIT_POLICY_HEADER = 'RateLimit-Policy';

export const ratePolicyName = (plan: string): string => `${plan}-rate`;

export const rateLimitPolicy = (name: string, plan: Plan): string =>
  [
    `"${name}";q=${plan.quota.limit};w=${QUOTA_PERIOD_SECONDS[plan.quota.period]}`,
    `"${ratePolicyName(name)}";q=${plan.burstLimit};w=${Math.ceil(plan.burstLimit / plan.rateLimit)}`,
  ].join(', ');

export interface QuotaPolicy {
  readonly name: string;
  readonly quota: number;
  readonly windowSeconds: number;
}

const POLICY_ITEM = /^"([a-z][a-z0-9-]*)";q=(\d+);w=(\d+)$/;

/** The policies of a `RateLimit-Policy` value as this service writes it; undefined when not of that form. */
export const parseRateLimitPolicy = (value: string | null | undefined): QuotaPolicy[] | undefined => {
  if (!value) return undefined;
  const policies: QuotaPolicy[] = [];
  for (const item of value.split(',').map((part) => part.trim())) {
    const match = POLICY_ITEM.exec(item);
    if (!match) return undefined;
    policies.push({ name: match[1] as string, quota: Number(match[2]), windowSeconds: Number(match[3]) });
  }
  return policies;
};

/** A JSON Schema pattern of the value, for the OpenAPI document. */
export const RATE_LIMIT_POLICY_PATTERN =
  '^"[a-z][a-z0-9-]*";q=[0-9]+;w=[0-9]+, "[a-z][a-z0-9-]*-rate";q=[0-9]+;w=[0-9]+$';
