import { ENV } from '#shared/config';
import { PRICES } from '#tools/costs/prices';

/**
 * What a stack costs a month with no request at all, read from its synthesized template: the
 * resources AWS bills for existing (alarms by the metrics they watch, dashboards, KMS keys, web
 * ACLs and their rules). Everything else of the stacks bills per use or per byte kept.
 */

export interface TemplateJson {
  readonly Resources: Readonly<
    Record<string, { readonly Type: string; readonly Properties?: Readonly<Record<string, unknown>> }>
  >;
}

export interface IdleCost {
  readonly resources: number;
  readonly alarms: number;
  /** What alarms are billed by: one per metric an alarm watches (each metric of a math expression). */
  readonly alarmMetrics: number;
  readonly dashboards: number;
  readonly keys: number;
  readonly webAcls: number;
  readonly firewallRules: number;
  /**
   * Each function with each table it calls (named in its environment): the pairs whose busy
   * environments ask KMS for the table's AWS managed key, which bills per request, not per month.
   */
  readonly tableClients: number;
  /** USD a month, by line. */
  readonly usd: {
    readonly alarms: number;
    readonly dashboards: number;
    readonly keys: number;
    readonly firewall: number;
    readonly total: number;
  };
}

const ofType = (template: TemplateJson, type: string) =>
  Object.values(template.Resources).filter((resource) => resource.Type === type);

/** An alarm on one metric names it; an alarm on an expression lists its metrics (`MetricStat`) and expressions. */
const metricsWatched = (alarm: TemplateJson['Resources'][string]): number => {
  if (alarm.Properties?.MetricName !== undefined) return 1;
  const metrics = (alarm.Properties?.Metrics ?? []) as readonly { readonly MetricStat?: unknown }[];
  return metrics.filter((metric) => metric.MetricStat !== undefined).length;
};

const TABLE_VARIABLES = new Set<string>(Object.values(ENV.tables));

const tablesCalled = (fn: TemplateJson['Resources'][string]): number => {
  const environment = fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined;
  return Object.keys(environment?.Variables ?? {}).filter((name) => TABLE_VARIABLES.has(name)).length;
};

export const idleCost = (template: TemplateJson): IdleCost => {
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm');
  const alarmMetrics = alarms.reduce((sum, alarm) => sum + metricsWatched(alarm), 0);
  const dashboards = ofType(template, 'AWS::CloudWatch::Dashboard').length;
  const keys = ofType(template, 'AWS::KMS::Key').length;
  const webAclResources = ofType(template, 'AWS::WAFv2::WebACL');
  const firewallRules = webAclResources.reduce(
    (sum, acl) => sum + ((acl.Properties?.Rules ?? []) as unknown[]).length,
    0,
  );
  const usd = {
    alarms: alarmMetrics * PRICES.alarmMetricMonth.usd,
    // The first 3 dashboards of an account are free; a stage's is counted as if they were taken.
    dashboards: dashboards * PRICES.dashboardMonth.usd,
    keys: keys * PRICES.kmsKeyMonth.usd,
    firewall: webAclResources.length * PRICES.wafWebAclMonth.usd + firewallRules * PRICES.wafRuleMonth.usd,
  };
  return {
    resources: Object.keys(template.Resources).length,
    alarms: alarms.length,
    alarmMetrics,
    dashboards,
    keys,
    webAcls: webAclResources.length,
    firewallRules,
    tableClients: ofType(template, 'AWS::Lambda::Function').reduce((sum, fn) => sum + tablesCalled(fn), 0),
    usd: { ...usd, total: usd.alarms + usd.dashboards + usd.keys + usd.firewall },
  };
};
