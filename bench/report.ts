import { type BudgetResult, NOT_JUDGED } from './budgets';
import type { BundlePair } from './bundles';
import type { CapacityRow, RequestCost, WalkCost } from './capacity';
import type { ColdStartRow } from './cold-start';
import type { E2eRow } from './e2e';
import type { ChildNode } from './lambda-node';
import type { Machine } from './machine';
import type { PartitionLoad } from './partition-load';
import type { BenchSettings } from './settings';
import type { WarmRow } from './warm';

/** Everything one run measured. */
export interface BenchReport {
  readonly date: string;
  readonly settings: BenchSettings;
  /** The machine, and the Node of this process (the parent: bundling, tables, the local server). */
  readonly machine: Machine;
  /** The Node of the cold-start and warm children. */
  readonly childNode: ChildNode;
  readonly javaVersion: string;
  readonly bundles: readonly BundlePair[];
  readonly coldStarts: readonly ColdStartRow[];
  readonly warm: readonly WarmRow[];
  readonly endToEnd: readonly E2eRow[];
  readonly capacity: readonly CapacityRow[];
  readonly walks: readonly WalkCost[];
  readonly partitionLoad: PartitionLoad;
  readonly budgets: readonly BudgetResult[];
  readonly durationSeconds: number;
}

type Cell = string | number;

/** A Markdown table with padded columns: readable as printed, and as rendered. */
export const table = (header: readonly string[], rows: readonly (readonly Cell[])[]): string => {
  const text = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(3, ...text.map((row) => (row[column] ?? '').length)));
  const numeric = header.map((_, column) =>
    rows.every((row) => /^[\d.,×x% +−/-]+(ms|KiB|CU|µs|\/s)?$|^—$/.test(String(row[column] ?? ''))),
  );
  const line = (row: readonly string[]) =>
    `| ${row
      .map((cell, column) =>
        numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (numeric[column] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  const [first = [], ...rest] = text;
  return [line(first), rule, ...rest.map(line)].join('\n');
};

const ms = (value: number, digits = 1) => `${value.toFixed(digits)} ms`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const times = (value: number, digits = 2) => `${value.toFixed(digits)}×`;
const cu = (value: number) => `${Number(value.toFixed(2))}`;

const costCells = (cost: RequestCost | undefined): Cell[] =>
  cost
    ? [cu(cost.readUnits), cu(cost.writeUnits), cu(cost.calls), cu(cost.itemsScanned)]
    : ['—', '—', '—', '—'];
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const perSecond = (value: number) => `${Math.floor(value).toLocaleString('en-US')}/s`;

/** A budget's value or limit, in its kind's unit. */
const budgetValue = (
  kind: BudgetResult['kind'],
  value: number,
  role: 'value' | 'limit' = 'value',
): string => {
  switch (kind) {
    // Three digits: a ratio printed as 1.30× must not read as a MISS of a 1.3× limit.
    case 'ratio':
      return role === 'limit' ? `${value}×` : times(value, 3);
    case 'extra':
      return `+${cu(value)} CU`;
    case 'units':
      return `${cu(value)} CU`;
    case 'calls':
      return cu(value);
    case 'share':
      return percent(value);
    case 'minimum':
      return perSecond(value);
  }
};

export const budgetTable = (report: BenchReport): string =>
  table(
    ['Budget', 'Function', 'Measured', 'Value', 'Limit', 'Result'],
    report.budgets.map((budget) => [
      budget.budget,
      budget.subject,
      budget.measured,
      // Three digits: a ratio printed as 1.30× must not read as a MISS of a 1.3× limit.
      budgetValue(budget.kind, budget.value),
      `${budget.kind === 'minimum' ? '≥' : '≤'} ${budgetValue(budget.kind, budget.limit, 'limit')}`,
      budget.verdict,
    ]),
  );

export const bundleTable = (report: BenchReport): string =>
  table(
    [
      'Function',
      'Service',
      'Baseline',
      'Ratio',
      'Service gzip',
      'Baseline gzip',
      'Service map',
      'Largest parts of the service bundle',
    ],
    report.bundles.map((pair) => [
      pair.name,
      kib(pair.service.bytes),
      kib(pair.baseline.bytes),
      times(pair.service.bytes / pair.baseline.bytes),
      kib(pair.service.gzipBytes),
      kib(pair.baseline.gzipBytes),
      kib(pair.service.mapBytes),
      pair.service.byPackage
        .slice(0, 4)
        .map((part) => `${part.name} ${kib(part.bytes)}`)
        .join(', '),
    ]),
  );

export const coldStartTable = (report: BenchReport): string =>
  table(
    [
      'Function',
      'Service p50',
      'Service p90',
      'Baseline p50',
      'Baseline p90',
      'Ratio p50',
      'Ratio per round p50',
      'Load / 1st call (service)',
      'Load / 1st call (baseline)',
      'No source maps: service / baseline p50',
      'Ratio, no source maps',
      'Process start → answer p50',
    ],
    report.coldStarts.map((row) => [
      row.name,
      ms(row.service.total.p50),
      ms(row.service.total.p90),
      ms(row.baseline.total.p50),
      ms(row.baseline.total.p90),
      times(row.service.total.p50 / row.baseline.total.p50),
      times(row.ratioPerRound.p50),
      `${row.service.load.p50.toFixed(1)} / ${row.service.firstInvoke.p50.toFixed(1)} ms`,
      `${row.baseline.load.p50.toFixed(1)} / ${row.baseline.firstInvoke.p50.toFixed(1)} ms`,
      row.withoutSourceMaps
        ? `${row.withoutSourceMaps.service.total.p50.toFixed(1)} / ${row.withoutSourceMaps.baseline.total.p50.toFixed(1)} ms`
        : '—',
      row.withoutSourceMaps
        ? times(row.withoutSourceMaps.service.total.p50 / row.withoutSourceMaps.baseline.total.p50)
        : '—',
      ms(row.service.readyAt.p50),
    ]),
  );

export const warmTable = (report: BenchReport): string =>
  table(
    ['Function', 'Service p50', 'Service p99', 'Baseline p50', 'Baseline p99', 'Ratio p50', 'Overhead p50'],
    report.warm.map((row) => [
      row.name,
      ms(row.service.p50, 2),
      ms(row.service.p99, 2),
      ms(row.baseline.p50, 2),
      ms(row.baseline.p99, 2),
      times(row.service.p50 / row.baseline.p50),
      `${Math.round((row.service.p50 - row.baseline.p50) * 1000)} µs`,
    ]),
  );

export const endToEndTable = (report: BenchReport): string =>
  table(
    ['Request', 'Connections', 'Requests', 'Requests/s', 'p50', 'p90', 'p99', 'Failures'],
    report.endToEnd.map((row) => [
      row.request,
      row.connections,
      row.requests,
      row.requestsPerSecond.toFixed(0),
      ms(row.latency.p50),
      ms(row.latency.p90),
      ms(row.latency.p99),
      row.failures,
    ]),
  );

export const capacityTable = (report: BenchReport): string =>
  table(
    [
      'Operation',
      'Pets in table',
      'RCU',
      'WCU',
      'Calls',
      'Items scanned',
      'Baseline RCU',
      'Baseline WCU',
      'Baseline calls',
      'Baseline items scanned',
    ],
    report.capacity.map((row) => [
      row.operation,
      row.pets,
      ...costCells(row.service),
      ...costCells(row.baseline),
    ]),
  );

export const walkTable = (report: BenchReport): string =>
  table(
    [
      'Design',
      'Pets in table',
      'Of the status',
      'Pages',
      'RCU a page, mean / max',
      'RCU a page at 0.5 a call, mean / max',
      'Queries a page, mean / max',
    ],
    report.walks.map((walk) => [
      walk.design,
      walk.pets,
      walk.statusPets,
      walk.pages,
      `${cu(walk.perPage.readUnits.mean)} / ${cu(walk.perPage.readUnits.max)}`,
      `${cu(walk.perPage.billedReadUnits.mean)} / ${cu(walk.perPage.billedReadUnits.max)}`,
      `${cu(walk.perPage.calls.mean)} / ${cu(walk.perPage.calls.max)}`,
    ]),
  );

/** The partition keys that took the most write units, and what the hottest one allows. */
export const partitionLoadTable = (report: BenchReport): string =>
  table(
    ['Partition key', 'WCU', 'Share of write units'],
    report.partitionLoad.hottest.map((key) => [key.key, cu(key.writeUnits), percent(key.share)]),
  );

export const partitionLoadLine = ({ partitionLoad: load }: BenchReport): string =>
  `${load.creates} creates (${load.instances} instances side by side, all \`${load.status}\`): ${cu(load.writeUnits)} WCU on ${load.keys} partition keys, ${load.writeUnitsPerCreate.toFixed(2)} WCU a create; hottest key ${percent(load.hottest[0]?.share ?? 0)} of write units; projected ceiling 1,000 WCU/s ÷ (${percent(load.hottest[0]?.share ?? 0)} × ${load.writeUnitsPerCreate.toFixed(2)}) = ${perSecond(load.ceilingCreatesPerSecond)} creates`;

export const machineLine = (report: BenchReport): string => {
  const { machine } = report;
  return `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB; ${machine.platform}; ${report.javaVersion}`;
};

/** Which Node ran what: the children's binary and version, and the parent's. */
export const nodeLines = (report: BenchReport): string[] => [
  `Cold-start and warm ${report.childNode.line}.`,
  `Parent (bundling, tables, capacity, the local server end to end): Node ${report.machine.node}.`,
];

/** How many budgets were judged and met, and how many a quick run did not judge. */
export const budgetSummary = (report: BenchReport): string => {
  const judged = report.budgets.filter((budget) => budget.verdict !== NOT_JUDGED);
  const missed = judged.filter((budget) => budget.verdict === 'MISS').length;
  const notJudged = report.budgets.length - judged.length;
  const outcome = missed === 0 ? 'all met' : `${missed} missed`;
  return notJudged === 0
    ? `${report.budgets.length} budgets: ${outcome}`
    : `${judged.length} deterministic budgets judged: ${outcome}; ${notJudged} timing budgets ${NOT_JUDGED}`;
};

/** The tables printed at the end of a run. */
export const renderConsole = (report: BenchReport): string =>
  [
    `Pet store benchmark (${report.settings.mode}), ${report.date}, ${report.durationSeconds.toFixed(0)} s`,
    machineLine(report),
    ...nodeLines(report),
    '',
    'Bundles',
    bundleTable(report),
    '',
    `Cold start: load + first invocation, ${report.settings.coldRuns} fresh ${report.settings.coldRuns === 1 ? 'process' : 'processes'} each, on Node ${report.childNode.version}`,
    coldStartTable(report),
    '',
    `Warm: ${report.settings.warmIterations} invocations each, in process, on Node ${report.childNode.version}`,
    warmTable(report),
    '',
    'End to end through the local server (autocannon)',
    endToEndTable(report),
    '',
    'DynamoDB capacity per request (ConsumedCapacity reported by DynamoDB Local)',
    capacityTable(report),
    '',
    'Whole walks of ?status=available, 20 a page, in the design in use and in the merge it replaced',
    walkTable(report),
    '',
    `Partition load: ${partitionLoadLine(report)}`,
    partitionLoadTable(report),
    '',
    `Budgets (${budgetSummary(report)})`,
    budgetTable(report),
  ].join('\n');
