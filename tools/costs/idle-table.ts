import { type IdleCost, idleCost, type TemplateJson } from '#tools/costs/idle';
import { PRICES } from '#tools/costs/prices';

/** The stacks whose idle cost docs/costs.md gives: the pipeline's, and a developer's in each shape. */
export const COSTED_STACKS = {
  staging: 'staging',
  production: 'production',
  devLean: '`dev-<name>`',
  devFull: '`dev-<name>` with `--full`',
} as const;

export type CostedStack = keyof typeof COSTED_STACKS;

export type CostedTemplates = Readonly<Record<CostedStack, TemplateJson>>;

export const idleCosts = (templates: CostedTemplates): Readonly<Record<CostedStack, IdleCost>> =>
  Object.fromEntries(
    (Object.keys(COSTED_STACKS) as CostedStack[]).map((stack) => [stack, idleCost(templates[stack])]),
  ) as Record<CostedStack, IdleCost>;

const usd = (value: number): string => value.toFixed(2);

const counted = (count: number, cost: number, what: string): string =>
  count === 0 ? 'none: 0.00' : `${what}: ${usd(cost)}`;

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** The idle table of docs/costs.md, a column per stack. */
export const idleTable = (templates: CostedTemplates): string => {
  const costs = Object.values(idleCosts(templates));
  const row = (label: string, cell: (cost: IdleCost) => string) =>
    `| ${label} | ${costs.map(cell).join(' | ')} |`;
  return [
    `| USD a month, idle | ${Object.values(COSTED_STACKS).join(' | ')} |`,
    `| --- |${costs.map(() => ' ---: |').join('')}`,
    row('Resources in the stack (only those below are billed for existing)', (cost) =>
      String(cost.resources),
    ),
    row(`Alarms: ${usd(PRICES.alarmMetricMonth.usd)} for each metric an alarm watches`, (cost) =>
      counted(
        cost.alarms,
        cost.usd.alarms,
        `${plural(cost.alarms, 'alarm')}, ${plural(cost.alarmMetrics, 'metric')}`,
      ),
    ),
    row('Dashboard (the first 3 of an account are free)', (cost) =>
      counted(cost.dashboards, cost.usd.dashboards, plural(cost.dashboards, 'dashboard')),
    ),
    row(
      `KMS keys: the alarm topic's (each of a key's yearly rotations adds ${usd(PRICES.kmsKeyMonth.usd)}, for the first two)`,
      (cost) => counted(cost.keys, cost.usd.keys, plural(cost.keys, 'key')),
    ),
    row('Firewall: a web ACL and its rules', (cost) =>
      counted(
        cost.webAcls,
        cost.usd.firewall,
        `${plural(cost.webAcls, 'web ACL')}, ${plural(cost.firewallRules, 'rule')}`,
      ),
    ),
    row(
      'Log storage, tables, Lambda, API Gateway, usage plans, CodeDeploy, saved queries, X-Ray, metrics, the event bus, its archive and schema registry, the failures queue',
      () => '0.00',
    ),
    row('**Total**', (cost) => `**${usd(cost.usd.total)}**`),
  ].join('\n');
};
