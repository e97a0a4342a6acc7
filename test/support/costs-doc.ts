import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { COST_TABLES } from '#tools/costs/cost-tables';

/** docs/costs.md, read by the tests that hold its figures to what they come from. */
export const COSTS_MD = readFileSync(join(PROJECT_ROOT, 'docs', 'costs.md'), 'utf8');
export const BENCHMARKS_MD = readFileSync(join(PROJECT_ROOT, 'BENCHMARKS.md'), 'utf8');
/** The documents that name a stage's cost in prose, their lines joined: a figure may wrap. */
const prose = (...path: string[]) => readFileSync(join(PROJECT_ROOT, ...path), 'utf8').replace(/\s+/g, ' ');
export const README_MD = prose('README.md');
export const COSTS_PROSE = prose('docs', 'costs.md');
export const DEPLOY_MD = prose('docs', 'deploy.md');

/** The rows of the first Markdown table after `start`, header and separator left out, cells trimmed. */
export const tableAfter = (text: string, start: string): string[][] => {
  const from = text.indexOf(start);
  if (from < 0) throw new Error(`No "${start}"`);
  const lines = text.slice(from + start.length).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replace(/^\*\*(.*)\*\*$/, '$1')),
    );
  }
  return rows.slice(2);
};

/** The row of a table whose first cell starts with `label`. */
export const rowOf = (rows: readonly string[][], label: string): string[] => {
  const row = rows.find(([first]) => first?.startsWith(label));
  if (!row) throw new Error(`No row "${label}"`);
  return row;
};

const prices = tableAfter(COSTS_MD, COST_TABLES.prices.marker);
export const price = (label: string): number => Number(rowOf(prices, label)[1]);
