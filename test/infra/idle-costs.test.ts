import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '#infra/stage-names';
import { COSTS_MD, price, rowOf, tableAfter } from '../support/costs-doc';
import { synthDevStage, synthStages } from '../support/pet-store-app';
import { resourcesOfType } from '../support/template-queries';

/**
 * docs/costs.md's idle costs held to the synthesized stacks (the worker's shared apps): the alarms
 * and the metrics they watch, the web ACL's rules, and the totals from the prices table.
 */

type Table = ReturnType<typeof tableAfter>;

/** The idle table's alarms row held to the template's alarms and the metrics they watch; one dashboard, one key. */
const expectAlarmsDashboardAndKey = (template: Template, idle: Table): void => {
  const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm');
  const metrics = alarms
    .map(([, alarm]) =>
      alarm.Properties.MetricName
        ? 1
        : (alarm.Properties.Metrics as { MetricStat?: unknown }[]).filter((metric) => metric.MetricStat)
            .length,
    )
    .reduce((sum, count) => sum + count, 0);
  const [label = '', cost] = rowOf(idle, 'Alarms');

  expect(label).toContain(`${alarms.length} alarms watching ${metrics} metrics`);
  expect(Number(cost)).toBeCloseTo(metrics * price('CloudWatch alarm'), 2);
  template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  template.resourceCountIs('AWS::KMS::Key', 1);
};

/** The dashboard's and the key's prices, and the total the sum of the rows above it. */
const expectTotal = (idle: Table): void => {
  expect(Number(rowOf(idle, 'Dashboard')[1])).toBe(price('CloudWatch dashboard'));
  expect(Number(rowOf(idle, 'KMS key')[1])).toBe(price('KMS customer managed key'));
  const parts = idle.filter(([label]) => label !== 'Total').map(([, cost]) => Number(cost));
  expect(Number(rowOf(idle, 'Total')[1])).toBeCloseTo(
    parts.reduce((sum, cost) => sum + cost, 0),
    2,
  );
};

describe('what a stage costs idle', () => {
  const idle = tableAfter(COSTS_MD, '<!-- costs:idle -->');
  const { templates } = synthStages();

  it.each(STAGE_NAMES)(
    'counts the alarms of the synthesized %s stack, and the metrics they watch',
    (stageName) => {
      expectAlarmsDashboardAndKey(templates[stageName], idle);
    },
    // Synthesizing a stack takes under a second on a quiet machine, several on a busy one.
    60_000,
  );

  it.each(STAGE_NAMES)('prices the web ACL the synthesized %s stack has, rule by rule', (stageName) => {
    const template = templates[stageName];
    const [, webAcl] = resourcesOfType(template, 'AWS::WAFv2::WebACL')[0] ?? [];
    const rules = (webAcl?.Properties.Rules as unknown[] | undefined)?.length ?? 0;
    const [label = '', cost] = rowOf(idle, 'Firewall');

    expect(rules).toBeGreaterThan(0);
    expect(label).toContain(`its ${rules} rules`);
    expect(Number(cost)).toBeCloseTo(price('AWS WAF web ACL') + rules * price('AWS WAF rule'), 2);
  });

  it('adds up to its total, from the prices of a dashboard and a key', () => {
    expectTotal(idle);
  });
});

describe("what a developer's stage costs idle", () => {
  const idle = tableAfter(COSTS_MD, '<!-- costs:idle-dev -->');
  const { template } = synthDevStage('dev-costs', 'full');

  it('counts the alarms of the synthesized dev stack, its dashboard and key, and no web ACL', () => {
    expectAlarmsDashboardAndKey(template, idle);
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(Number(rowOf(idle, 'Firewall: none')[1])).toBe(0);
  }, 60_000); // Synthesizing a stack takes under a second on a quiet machine, several on a busy one.

  it('adds up to its total, from the prices of a dashboard and a key', () => {
    expectTotal(idle);
  });

  it("prices an hour of it from its monthly total, and the key's wait after cdk destroy", () => {
    const total = Number(rowOf(idle, 'Total')[1]);
    const hour = (total / 730).toFixed(3);
    const wait = ((price('KMS customer managed key') * 7) / 30).toFixed(2);

    expect(COSTS_MD).toContain(`about ${total.toFixed(2)} / 730 = $${hour}`);
    expect(COSTS_MD).toContain(`at most $${wait} more`);
  });
});
