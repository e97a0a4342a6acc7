/**
 * `npm run bench` (add `-- --quick` for a smoke run, `-- --strict` to exit 1 on a missed budget):
 * installs the Lambda's Node for the children when missing (bench/lambda-node.ts), starts
 * DynamoDB Local in memory, runs bench/bench.ts, prints the tables, and (full runs only) rewrites
 * the generated block of BENCHMARKS.md. Nothing here configures the functions through this
 * process's environment: the measured handlers are built with explicit configurations, or run in
 * child processes with an environment of their own (bench/function-env.ts).
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { startDynamoDbLocal } from '#tools/local/dynamodb-local';
import { runBench } from './bench';
import { writeReportFile } from './benchmarks-file';
import { NOT_JUDGED } from './budgets';
import { findLambdaNode, installLambdaNode } from './lambda-node';
import { type BenchReport, budgetSummary, renderConsole } from './report';

// This process is the parent and runs on the machine's Node on purpose (the children run the
// Lambda's): the AWS SDK's notice that it will need a newer Node says nothing about what is measured.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const mode = process.argv.includes('--quick') ? 'quick' : 'full';
const strict = process.argv.includes('--strict');
const log = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const installFailure = installLambdaNode(log);
if (installFailure) log(installFailure);
const childNode = findLambdaNode();

log(`mode ${mode}; starting DynamoDB Local (in memory)`);
const db = await startDynamoDbLocal();
let report: BenchReport;
try {
  report = await runBench({
    mode,
    dynamoDbEndpoint: db.endpoint,
    workDir: join(PROJECT_ROOT, '.bench'),
    childNode,
    progress: log,
  });
} finally {
  await db.stop();
}

console.log(`\n${renderConsole(report)}\n`);
// Every number of the run, for a closer look than the tables give (git-ignored).
writeFileSync(join(PROJECT_ROOT, '.bench', `report-${mode}.json`), `${JSON.stringify(report, null, 2)}\n`);
if (mode === 'full') {
  const markdown = join(PROJECT_ROOT, 'BENCHMARKS.md');
  writeReportFile(report, markdown);
  log(`wrote ${markdown}`);
} else {
  const markdown = join(PROJECT_ROOT, '.bench/BENCHMARKS.quick.md');
  writeReportFile(report, markdown);
  log(`quick run: wrote ${markdown} (BENCHMARKS.md keeps the full run's numbers)`);
}
log(budgetSummary(report));
log(childNode.line);
const missed = report.budgets.filter((budget) => budget.verdict === 'MISS');
if (mode === 'quick' && report.budgets.some((budget) => budget.verdict === NOT_JUDGED)) {
  log('a quick run times too little to judge a timing budget: npm run bench for those verdicts');
}
if (strict && missed.length > 0) process.exitCode = 1;
