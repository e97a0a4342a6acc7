/** What each API key may send (infra/stage-plans.ts), enforced by usage plans or tools/local/fair-use.ts. */

export const QUOTA_PERIODS = ['DAY', 'MONTH'] as const;
export type QuotaPeriod = (typeof QUOTA_PERIODS)[number];

/** The `RateLimit-Policy` window (`w`): a month is 30 days, as the header has one number. */
export const QUOTA_PERIOD_SECONDS: Readonly<Record<QuotaPeriod, number>> = {
  DAY: 86_400,
  MONTH: 30 * 86_400,
};

/** A plan name: lower-case letters, digits and `-`, starting with a letter (it names usage plans and header policies). */
export const PLAN_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export interface Plan {
  readonly rateLimit: number;
  /** The bucket's size; at least `rateLimit`. */
  readonly burstLimit: number;
  readonly quota: { readonly limit: number; readonly period: QuotaPeriod };
}

export interface Plans {
  readonly plans: Readonly<Record<string, Plan>>;
  readonly defaultPlan: string;
}

export class PlansError extends Error {
  override readonly name = 'PlansError';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const positiveInteger = (value: unknown, where: string): number => {
  if (!Number.isSafeInteger(value) || (value as number) < 1)
    throw new PlansError(`${where} must be a whole number of at least 1, not ${JSON.stringify(value)}`);
  return value as number;
};

const checkPlan = (value: unknown, where: string): Plan => {
  if (!isObject(value)) throw new PlansError(`${where} must be an object`);
  const rateLimit = positiveInteger(value.rateLimit, `${where}.rateLimit`);
  const burstLimit = positiveInteger(value.burstLimit, `${where}.burstLimit`);
  if (burstLimit < rateLimit)
    throw new PlansError(
      `${where}.burstLimit must be at least rateLimit (${rateLimit}): the bucket holds a second of requests`,
    );
  if (!isObject(value.quota)) throw new PlansError(`${where}.quota must be an object`);
  const limit = positiveInteger(value.quota.limit, `${where}.quota.limit`);
  const period = value.quota.period;
  if (!(QUOTA_PERIODS as readonly unknown[]).includes(period))
    throw new PlansError(
      `${where}.quota.period must be one of ${QUOTA_PERIODS.join(', ')}, not ${JSON.stringify(period)}`,
    );
  return { rateLimit, burstLimit, quota: { limit, period: period as QuotaPeriod } };
};

/** `value` as Plans, or a PlansError naming the first problem; by hand: the authorizer's bundle has no valibot. */
export const checkPlans = (value: unknown): Plans => {
  if (!isObject(value) || !isObject(value.plans))
    throw new PlansError('plans must be an object of plans by name');
  const names = Object.keys(value.plans);
  if (names.length === 0) throw new PlansError('plans must name at least one plan');
  const plans: Record<string, Plan> = {};
  for (const name of names) {
    if (!PLAN_NAME.test(name))
      throw new PlansError(
        `plan name "${name}" must be lower-case letters, digits and -, starting with a letter`,
      );
    plans[name] = checkPlan(value.plans[name], `plans.${name}`);
  }
  const { defaultPlan } = value;
  if (typeof defaultPlan !== 'string' || !Object.hasOwn(plans, defaultPlan))
    throw new PlansError(
      `defaultPlan must be one of ${names.join(', ')}, not ${JSON.stringify(defaultPlan)}`,
    );
  return { plans, defaultPlan };
};

export const planNames = (plans: Plans): string[] => Object.keys(plans.plans);

export const isPlanName = (plans: Plans, name: string): boolean => Object.hasOwn(plans.plans, name);

/** The plan a key is on: the one its record names, or the default one when it names none. */
export const planOf = (plans: Plans, name: string | undefined): { name: string; plan: Plan } | undefined => {
  const chosen = name ?? plans.defaultPlan;
  const plan = isPlanName(plans, chosen) ? plans.plans[chosen] : undefined;
  return plan ? { name: chosen, plan } : undefined;
};
