import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { markdownTable } from 'markdown-table';
import { POLL_INTERVAL_MS } from '#tools/local/stream-poller';
import type { runBench } from './bench';
import { type BudgetResult, kib, LIMITS, ms, NOT_JUDGED } from './budgets';
import type { RequestCost } from './capacity';
import type { ColdStartSeries } from './latency';

export type BenchReport = Awaited<ReturnType<typeof runBench>>;

type Cell = string | number;

/** A Markdown table with padded columns, numbers to the right: readable as printed, and as rendered. */
const table = (columns: string, rows: readonly (readonly Cell[])[]): string => {
  const header = columns.split('|');
  const numeric = (column: number) =>
    rows.every((row) => /^[\d.,×% +−/<≤≥-]+(ms|KiB|CU|µs|\/s)?$|^—$/.test(String(row[column] ?? '')));
  const text = rows.map((row) => row.map(String));
  return markdownTable([header, ...text], { align: header.map((_, column) => (numeric(column) ? 'r' : '')) });
};

const times = (value: number, digits = 2) => `${value.toFixed(digits)}×`;
const cu = (value: number) => `${Number(value.toFixed(2))}`;
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const perSecond = (value: number) => `${Math.floor(value).toLocaleString('en-US')}/s`;
const split = (series: ColdStartSeries) =>
  `${series.load.p50.toFixed(1)} / ${series.firstInvoke.p50.toFixed(1)} ms`;
const costCells = (cost: RequestCost): Cell[] =>
  [cost.readUnits, cost.writeUnits, cost.calls, cost.itemsScanned].map(cu);

const shown = (unit: BudgetResult['unit'], value: number, limit = false): string => {
  if (Number.isNaN(value)) return limit ? 'none set (bench/budgets.ts)' : '—';
  if (unit === '×') return limit ? `${value}×` : times(value, 3);
  if (unit === '%') return percent(value);
  if (unit === '/s') return perSecond(value);
  if (unit === 'calls') return cu(value);
  if (unit === 'ms') return `${value.toFixed(0)} ms`;
  return `${unit === '+CU' ? '+' : ''}${cu(value)} CU`;
};

export const budgetSummary = (report: BenchReport): string => {
  const judged = report.budgets.filter((budget) => budget.verdict !== NOT_JUDGED);
  const missed = judged.filter((budget) => budget.verdict === 'MISS').length;
  const outcome = missed === 0 ? 'all met' : `${missed} missed`;
  const notJudged = report.budgets.length - judged.length;
  return notJudged === 0
    ? `${report.budgets.length} budgets: ${outcome}`
    : `${judged.length} deterministic budgets judged: ${outcome}; ${notJudged} timing budgets ${NOT_JUDGED}`;
};

/** The report in Markdown: printed at the end of a run, and the generated part of BENCHMARKS.md. */
export const renderReport = (report: BenchReport): string => {
  const { settings, coldStarts, capacity, partitionLoad: load } = report;
  const { peer, sourceMap: map } = coldStarts;
  const { coldStart } = LIMITS;
  const node = report.childNode.version;
  const share = percent(load.hottest[0]?.share ?? 0);
  const deployed = coldStarts.rows.find((row) => row.name === map.name)?.service.total.p50 ?? Number.NaN;
  const requests = `${settings.capacityRequests} request${settings.capacityRequests === 1 ? '' : 's'}`;
  const section = (title: string, ...parts: string[]) => [`### ${title}`, ...parts].join('\n\n');
  return [
    [
      `Run of ${report.date} (${settings.mode} mode, ${report.durationSeconds.toFixed(0)} s in all).`,
      `Machine: ${report.machine}.`,
      `Cold-start and warm ${report.childNode.line}.`,
      `Parent (bundling, tables, capacity, the partition load): Node ${report.parentNode}.`,
    ].join('\n'),
    section(
      'Budgets',
      `Cold start ≤ ${coldStart.read}× its baseline's (a raw function as usually built and deployed) for a read, ${coldStart.write}× for a write, ${coldStart.authorizer}× for the authorizer, ${coldStart.publisher}× for the events publisher (its baseline a raw stream-to-PutEvents function), and its init below the peer's: each the median of the ratios of rounds that run both back to back ("Measured" shows the two medians). Each function's own code (its cold start in CPU time against that baseline built as the stack builds the function, the two side by side) and its warm p50 stay under limits of its own, its measured ratio with room for the spread of runs and short of what a 10% slower function measures (bench/budgets.ts; docs/decisions/0007-the-bench-budgets-say-what-is-true.md). ${budgetSummary(report)}.`,
      table(
        'Budget|Function|Measured|Value|Limit|Result',
        report.budgets.map(({ budget, subject, measured, unit, value, comparison, limit, verdict }) => [
          budget,
          subject,
          measured,
          shown(unit, value),
          `${comparison} ${shown(unit, limit, true)}`,
          verdict,
        ]),
      ),
    ),
    section(
      'Bundles',
      "KiB of the `.mjs`: each function as the stack builds it; its baseline as a raw function is usually built (the same esbuild options without the stack's aliases, no map), and built the same way as the function (the ratio the budget reads).",
      table(
        'Function|Service|Baseline|Baseline, same bundling|Ratio to it|Service gzip|Baseline gzip|Largest parts of the service bundle',
        report.bundles.map(({ name, service, baseline, sameBundling }) => [
          name,
          ...[service.bytes, baseline.bytes, sameBundling.bytes].map(kib),
          times(service.bytes / sameBundling.bytes),
          ...[service.gzipBytes, baseline.gzipBytes].map(kib),
          service.largest.map((part) => `${part.name} ${kib(part.bytes)}`).join(', '),
        ]),
      ),
    ),
    section(
      'Cold start',
      `Import and first invocation in a fresh process on Node ${node}, by the clock, ${settings.coldRuns} round${settings.coldRuns === 1 ? '' : 's'}${settings.coldWarmupRound ? ' after a discarded one' : ''}: each function as the stack deploys it, its baseline and the peer as a raw function is usually deployed. The peer (bench/peer.ts): ${ms(peer.total.p50)} at p50, load / first call ${split(peer)}.`,
      table(
        'Function|Service p50|Service p90|Baseline p50|Ratio per round p50|Init against the peer|Load / 1st call|Load / 1st call (baseline)',
        coldStarts.rows.map((row) => [
          row.name,
          ...[row.service.total.p50, row.service.total.p90, row.baseline.total.p50].map((value) => ms(value)),
          ...[row.ratioPerRound, row.peerRatioPerRound].map((ratio) => times(ratio.p50, 3)),
          ...[row.service, row.baseline].map(split),
        ]),
      ),
      `The map's cost: ${map.name} with \`NODE_OPTIONS=--enable-source-maps\` and its ${kib(map.mapBytes)} map, ${ms(map.series.total.p50)} against ${ms(deployed)} as deployed: ${times(map.ratioPerRound.p50, 3)} per round.`,
    ),
    section(
      'Own code',
      `What the project's own code costs a cold start: each function as the stack builds it and its baseline built the same way ("same bundling"), started side by side in fresh processes, each timed in CPU milliseconds of its import and first invocation (every thread of it; what the rest of the machine runs is not counted), ${settings.ownCode.minRounds} round${settings.ownCode.minRounds === 1 ? '' : 's'} at least${settings.ownCode.maxRounds > settings.ownCode.minRounds ? `, then more, up to ${settings.ownCode.maxRounds}, until the median of the paired ratios is known to ±${settings.ownCode.precision} (95%)` : ''}.`,
      table(
        'Function|Service, CPU p50|Same bundling, CPU p50|Ratio p50|95% interval|Rounds',
        report.ownCode.map(({ name, service, sameBundling, ratio }) => [
          name,
          ...[service.p50, sameBundling.p50].map((value) => ms(value)),
          times(ratio.p50, 3),
          `${times(ratio.low, 3)} – ${times(ratio.high, 3)}`,
          ratio.n,
        ]),
      ),
    ),
    section(
      'Warm invocations',
      `${settings.warmIterations} invocations of each function and its baseline, in turn in one process on Node ${node}, after ${settings.warmWarmup} of warm-up. The budget reads the median of the ratios of the two calls of each turn ("Ratio per call p50").`,
      table(
        'Function|Service p50|Service p99|Baseline p50|Baseline p99|Ratio of the p50s|Ratio per call p50|Overhead p50',
        report.warm.map(({ name, service, baseline, ratioPerCall }) => [
          name,
          ...[service.p50, service.p99, baseline.p50, baseline.p99].map((value) => ms(value, 2)),
          times(service.p50 / baseline.p50, 3),
          times(ratioPerCall.p50, 3),
          `${Math.round((service.p50 - baseline.p50) * 1000)} µs`,
        ]),
      ),
    ),
    section(
      'Events',
      `From each of ${report.eventLatency.writes} creates' answer to its event's line in events.ndjson, as \`npm start\` publishes: createPet's handler in the bench's process, the publisher on DynamoDB Local's stream through the local event source mapping, which polls each shard every ${POLL_INTERVAL_MS} ms while it finds nothing (Lambda's base rate). Each create waits a random part of that first, so the writes do not fall into step with the polls.`,
      table('Writes|p50|p99|Max', [
        [
          report.eventLatency.writes,
          ...[report.eventLatency.p50, report.eventLatency.p99, report.eventLatency.max].map((value) =>
            ms(value, 0),
          ),
        ],
      ]),
    ),
    section(
      'DynamoDB capacity per request',
      `As DynamoDB Local reports it to the meter (bench/metering.ts), mean of ${requests} of a fresh instance (a create's first leases a block of ids), at ${settings.smallTable} and then ${settings.largeTable} pets.`,
      table(
        'Function|Pets in table|RCU|WCU|Calls|Items scanned|Baseline RCU|Baseline WCU|Baseline calls|Baseline items scanned',
        capacity.rows.map((row) => [
          row.name,
          row.pets,
          ...costCells(row.service),
          ...costCells(row.baseline),
        ]),
      ),
    ),
    section(
      'Walks',
      `Every page of whole walks of ${capacity.listing} following \`Link\`, 20 a page; every Query counted at 0.5 RCU at least, as DynamoDB bills it.`,
      table(
        'Listing|Pets in table|Listed|Pages|RCU of page 1|RCU a page, mean / max|Queries a page, mean / max',
        capacity.walks.map((walk) => [
          `${capacity.listing} ${walk.query}`.trim(),
          walk.pets,
          walk.listed,
          walk.pages,
          cu(walk.firstPage),
          `${cu(walk.billedReadUnits.mean)} / ${cu(walk.billedReadUnits.max)}`,
          `${cu(walk.calls.mean)} / ${cu(walk.calls.max)}`,
        ]),
      ),
    ),
    section(
      'Partition load',
      `${load.creates} creates through ${load.subject}'s handler (${load.instances} instances side by side, all \`available\`): ${cu(load.writeUnits)} WCU on ${load.keys} partition keys, ${load.writeUnitsPerCreate.toFixed(2)} WCU a create, the hottest key ${share} of them. Projected ceiling, the create rate at which that key reaches DynamoDB's 1,000 WCU/s per partition: 1,000 ÷ (${share} × ${load.writeUnitsPerCreate.toFixed(2)}) = ${perSecond(load.ceilingCreatesPerSecond)}.`,
      table(
        'Partition key|WCU|Share of write units',
        load.hottest.map((key) => [key.key, cu(key.writeUnits), percent(key.share)]),
      ),
    ),
  ].join('\n\n');
};

const BEGIN = '<!-- bench:begin (generated by `npm run bench`; edit outside these markers) -->';
const END = '<!-- bench:end -->';

/** Replaces the generated part of the Markdown file at `path` (its folder made already); what is written around it stays. */
export const writeReportFile = (report: BenchReport, path: string): void => {
  const block = `${BEGIN}\n\n${renderReport(report)}\n\n${END}`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : `# Benchmarks\n\n${BEGIN}\n${END}\n`;
  const [begin, end] = [current.indexOf(BEGIN), current.indexOf(END)];
  writeFileSync(
    path,
    begin >= 0 && end > begin
      ? `${current.slice(0, begin)}${block}${current.slice(end + END.length)}`
      : `${current.trimEnd()}\n\n${block}\n`,
  );
};
