/**
 * `npm run bench` (add `-- --quick` for a smoke run, `-- --strict` to exit 1 on a missed budget):
 * starts DynamoDB Local in memory, runs bench/bench.ts, prints the tables, and (full runs only)
 * writes BENCHMARKS.md and bench/latency.svg.
 */

import type { BenchReport } from './report';

// The function entry modules build their own handler from the environment as they load; the
// capacity measurement imports them for their factories only. Point those unused handlers at a
// dead local port, as the tests do, and keep the bench's own output free of function logs.
process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';
process.env.PETS_TABLE_NAME ??= 'unconfigured-pets';
process.env.COUNTERS_TABLE_NAME ??= 'unconfigured-counters';
process.env.API_KEYS_TABLE_NAME ??= 'unconfigured-apikeys';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const { writeFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { PROJECT_ROOT } = await import('#infra/project-root');
const { startDynamoDbLocal } = await import('#infra/local/dynamodb-local');
const { runBench } = await import('./bench');
const { renderConsole } = await import('./report');
const { writeReportFiles } = await import('./benchmarks-file');

const mode = process.argv.includes('--quick') ? 'quick' : 'full';
const strict = process.argv.includes('--strict');
const log = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

log(`mode ${mode}; starting DynamoDB Local (in memory)`);
const db = await startDynamoDbLocal();
let report: BenchReport;
try {
  report = await runBench({
    mode,
    dynamoDbEndpoint: db.endpoint,
    workDir: join(PROJECT_ROOT, '.bench'),
    progress: log,
  });
} finally {
  await db.stop();
}

console.log(`\n${renderConsole(report)}\n`);
// Every number of the run, for a closer look than the tables give (git-ignored).
writeFileSync(join(PROJECT_ROOT, '.bench', `report-${mode}.json`), `${JSON.stringify(report, null, 2)}\n`);
if (mode === 'full') {
  const written = writeReportFiles(report, {
    markdown: join(PROJECT_ROOT, 'BENCHMARKS.md'),
    chart: join(PROJECT_ROOT, 'bench/latency.svg'),
  });
  log(`wrote ${written.join(', ')}`);
} else {
  const written = writeReportFiles(report, {
    markdown: join(PROJECT_ROOT, '.bench/BENCHMARKS.quick.md'),
    chart: join(PROJECT_ROOT, '.bench/latency.quick.svg'),
  });
  log(`quick run: wrote ${written.join(', ')} (BENCHMARKS.md keeps the full run's numbers)`);
}
const missed = report.budgets.filter((budget) => !budget.pass);
log(missed.length === 0 ? 'every budget met' : `${missed.length} of ${report.budgets.length} budgets missed`);
if (strict && missed.length > 0) process.exitCode = 1;
