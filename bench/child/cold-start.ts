import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '#tools/lambda/context';
import { BENCH_CONTEXT, freshRequest, outcomeOf } from '../lambda-context';

/**
 * One cold start, in a fresh `node` process: load a Lambda bundle, answer one event, report.
 * Built by esbuild into the work directory and run as
 * `node cold-start.mjs <result.json> <bundle.mjs> <event JSON> [name]`; the result is written to
 * `result.json` once the answer is in (stdout is the function's log).
 *
 * `performance.now()` counts from the start of this process, so `readyAt` is process start to
 * first answer; `loadMs + firstInvokeMs` is what Lambda bills as init plus the first invocation.
 */

const [resultPath, bundle, eventJson, functionName = 'bench'] = process.argv.slice(2);
if (!resultPath || !bundle || !eventJson) {
  throw new Error('usage: cold-start.mjs <result.json> <bundle.mjs> <event JSON> [name]');
}
const event: unknown = freshRequest(JSON.parse(eventJson));
const context = lambdaContext(functionName, BENCH_CONTEXT);

const beforeImport = performance.now();
const module = (await import(pathToFileURL(bundle).href)) as {
  handler: (event: unknown, context: unknown) => Promise<unknown>;
};
const loaded = performance.now();
const result = await module.handler(event, context);
const answered = performance.now();

writeFileSync(
  resultPath,
  `${JSON.stringify({
    bootMs: beforeImport,
    loadMs: loaded - beforeImport,
    firstInvokeMs: answered - loaded,
    totalMs: answered - beforeImport,
    readyAtMs: answered,
    status: outcomeOf(result),
  })}\n`,
);
// The SDK keeps its connection alive, as in Lambda; nothing more to wait for.
process.exit(0);
