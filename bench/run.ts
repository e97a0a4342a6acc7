/** `npm run bench` (`-- --quick` for a smoke run, `-- --strict` to exit 1 on a missed budget). */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { wantsHelp } from '#tools/command';
import { installLambdaNode, LAMBDA_NODE_MAJOR } from './lambda-node';
import type { BenchReport } from './report';

// The parent runs on the machine's Node on purpose: the SDK's notice about it measures nothing.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

if (wantsHelp(process.argv.slice(2))) {
  console.log(`Usage: npm run bench [-- --strict]    every function against its baseline; writes BENCHMARKS.md
       npm run bench:quick                 every path once, in seconds; writes .bench/BENCHMARKS.quick.md
--strict: exit 1 when a budget is missed. Node ${LAMBDA_NODE_MAJOR} is installed into bench/lambda-node/ on the first run.`);
  process.exit(0);
}

// The bench itself loads after the usage is asked for, or not.
const [{ startDynamoDbLocal }, { runBench }, { budgetSummary, renderReport, writeReportFile }] =
  await Promise.all([import('#tools/local/dynamodb-local'), import('./bench'), import('./report')]);
const mode = process.argv.includes('--quick') ? 'quick' : 'full';
const log = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const installFailure = installLambdaNode(log);
if (installFailure) log(installFailure);
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

console.log(`\n${renderReport(report)}\n`);
// Every number of the run, for a closer look than the tables give (git-ignored).
writeFileSync(join(PROJECT_ROOT, '.bench', `report-${mode}.json`), `${JSON.stringify(report, null, 2)}\n`);
const markdown = join(PROJECT_ROOT, mode === 'full' ? 'BENCHMARKS.md' : '.bench/BENCHMARKS.quick.md');
writeReportFile(report, markdown);
log(`wrote ${markdown}${mode === 'quick' ? ' (BENCHMARKS.md keeps the full run)' : ''}`);
log(budgetSummary(report));
const missed = report.budgets.filter((budget) => budget.verdict === 'MISS');
for (const { budget, subject, value, limit } of missed) {
  log(
    `MISS ${subject}: ${budget}: ${Number(value.toFixed(3))}, limit ${Number.isNaN(limit) ? 'none set in bench/budgets.ts' : limit}`,
  );
}
if (process.argv.includes('--strict') && missed.length > 0) process.exitCode = 1;
