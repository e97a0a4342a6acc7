import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '#tools/local/local-stack';
import { checkThroughPrism } from '#tools/openapi/prism-check';

/**
 * `npm run test:prism`: the local stack (its own DynamoDB Local, a temporary data directory)
 * behind Prism as a validating proxy; exits non-zero when Prism finds the service and
 * docs/openapi.yaml disagree.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';

const started = performance.now();
const dataDir = await mkdtemp(join(tmpdir(), 'petstore-prism-'));
const stack = await startLocalStack({ dataDir, port: 0 });
let failed = true;
try {
  const report = await checkThroughPrism({ upstream: stack.gateway.baseUrl, apiKey: stack.apiKey });
  for (const { name, status, violations, problems } of report.results) {
    const seen = violations.map((violation) => `${violation.location[0]}: ${violation.message}`);
    console.log(
      `${problems.length === 0 ? 'ok  ' : 'FAIL'} ${name} -> ${status}${seen.length ? `  [Prism: ${seen.join('; ')}]` : ''}`,
    );
  }
  failed = report.failures.length > 0;
  console.log(
    failed
      ? `\nPrism found ${report.failures.length} problem(s):\n${report.failures.map((f) => `  - ${f}`).join('\n')}`
      : `\nPrism found no violation in ${report.results.length} exchanges.`,
  );
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
  console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
process.exit(failed ? 1 : 0);
