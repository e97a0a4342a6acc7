import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { COST_TABLES } from '#tools/costs/cost-tables';
import { docFigures } from '#tools/costs/figures';
import { idleCost, type TemplateJson } from '#tools/costs/idle';
import { type CostedTemplates, idleCosts } from '#tools/costs/idle-table';
import { PRICES } from '#tools/costs/prices';
import { synthDevStage, synthStages } from '../support/pet-store-app';
import { DOCUMENTS, proseLines } from '../support/prose';

/**
 * docs/costs.md's tables as `npm run costs` makes them from the cost model and the synthesized
 * stacks (the worker's shared apps), and every figure the prose of the docs gives about costs and
 * resources held to the same model: a figure no test checks fails here.
 */

const { templates } = synthStages();
const TEMPLATES: CostedTemplates = {
  staging: templates.staging.toJSON() as TemplateJson,
  production: templates.production.toJSON() as TemplateJson,
  devLean: synthDevStage('dev-costs').template.toJSON() as TemplateJson,
  devFull: synthDevStage('dev-costs', 'full').template.toJSON() as TemplateJson,
};
const IDLE = idleCosts(TEMPLATES);

/** At most what a lean developer stack may cost a month idle, and hold: a first deployment a newcomer can afford and read. */
const LEAN_IDLE_USD_AT_MOST = 1;
const LEAN_RESOURCES_AT_MOST = 80;

describe('docs/costs.md', () => {
  it.each(Object.entries(COST_TABLES))(
    'holds the %s table npm run costs makes (run it when this fails)',
    (_name, table) => {
      const text = table.read();

      expect(text).toContain(table.marker);
      expect(table.update(text, TEMPLATES)).toBe(text);
    },
  );
});

describe('what a stack costs idle', () => {
  const alarm = (properties: Record<string, unknown>) => ({
    Type: 'AWS::CloudWatch::Alarm',
    Properties: properties,
  });

  it('bills an alarm by each metric it watches, a dashboard, a key, a web ACL and each of its rules, and nothing else', () => {
    const cost = idleCost({
      Resources: {
        OneMetric: alarm({ MetricName: 'Errors' }),
        Expression: alarm({
          Metrics: [
            { Id: 'a', MetricStat: {} },
            { Id: 'b', MetricStat: {} },
            { Id: 'sum', Expression: 'a + b' },
          ],
        }),
        Board: { Type: 'AWS::CloudWatch::Dashboard' },
        Key: { Type: 'AWS::KMS::Key' },
        Acl: { Type: 'AWS::WAFv2::WebACL', Properties: { Rules: [{}, {}, {}] } },
        Table: { Type: 'AWS::DynamoDB::Table' },
      },
    });

    expect(cost).toMatchObject({ resources: 6, alarms: 2, alarmMetrics: 3, webAcls: 1, firewallRules: 3 });
    expect(cost.usd.total).toBeCloseTo(
      3 * PRICES.alarmMetricMonth.usd +
        PRICES.dashboardMonth.usd +
        PRICES.kmsKeyMonth.usd +
        PRICES.wafWebAclMonth.usd +
        3 * PRICES.wafRuleMonth.usd,
      10,
    );
  });

  it(`costs a lean developer stack at most $${LEAN_IDLE_USD_AT_MOST} a month in at most ${LEAN_RESOURCES_AT_MOST} resources, and a full one what staging costs without its firewall`, () => {
    expect(IDLE.devLean.usd.total).toBeLessThanOrEqual(LEAN_IDLE_USD_AT_MOST);
    expect(IDLE.devLean.resources).toBeLessThanOrEqual(LEAN_RESOURCES_AT_MOST);
    expect(IDLE.devFull.alarms).toBeGreaterThan(0);
    expect(IDLE.devFull.usd.total).toBeCloseTo(IDLE.staging.usd.total - IDLE.staging.usd.firewall, 10);
    expect(IDLE.staging.webAcls).toBe(1);
    expect(IDLE.production.webAcls).toBe(1);
  });
});

/** A document's prose as one line, whitespace collapsed (a figure's words may wrap anywhere). */
const prose = (file: string): string =>
  proseLines(readFileSync(join(PROJECT_ROOT, file), 'utf8'))
    .join(' ')
    .replace(/\s+/g, ' ');

/** A figure of cost, or a count of a stack's resources. */
const FIGURE = /\$\d[\d,]*(?:\.\d+)?|\b\d[\d,]* (?:resources|alarms|metric filters|deployment groups)\b/g;

describe('the figures of the docs', () => {
  const figures = docFigures(IDLE);

  it.each(figures.map((figure) => [figure.file, figure.text]))(
    '%s says "%s", as the cost model does',
    (file, text) => {
      expect(prose(file)).toContain(text);
    },
  );

  it.each(DOCUMENTS)('%s gives no cost or resource figure that is not one of those', (file) => {
    const text = prose(file);
    const checked = figures
      .filter((figure) => figure.file === file)
      .flatMap((figure) => {
        const at = text.indexOf(figure.text);
        return at < 0 ? [] : [[at, at + figure.text.length] as const];
      });
    const unchecked = [...text.matchAll(FIGURE)]
      .filter(({ index }) => !checked.some(([from, to]) => index >= from && index < to))
      .map(({ 0: figure, index }) => `${figure} in "…${text.slice(Math.max(0, index - 40), index + 40)}…"`);

    expect(unchecked).toEqual([]);
  });
});

describe("what the tables' encryption costs", () => {
  it.each(Object.keys(TEMPLATES) as (keyof CostedTemplates)[])(
    "prices the %s stack's tables with DynamoDB's AWS managed key: no key of the stack's, its requests by each function's tables",
    (stack) => {
      const tables = Object.values(TEMPLATES[stack].Resources).filter(
        (resource) => resource.Type === 'AWS::DynamoDB::Table',
      );

      expect(tables.length).toBeGreaterThan(0);
      for (const table of tables) expect(table.Properties?.SSESpecification).toEqual({ SSEEnabled: true });
      // Every stack runs the same functions on the same tables: the figure the docs give is each one's.
      expect(IDLE[stack].tableClients).toBe(IDLE.staging.tableClients);
      expect(IDLE[stack].tableClients).toBeGreaterThan(0);
    },
  );
});
