import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '#tools/lambda/context';
import { BENCH_CONTEXT, freshRequest, outcomeOf } from '../lambda-context';

/**
 * Warm invocations of a service bundle and its baseline, in one process, interleaved: after a
 * warm-up, each iteration invokes both (alternating which goes first), so drift in the machine
 * or in DynamoDB Local hits both alike. Run as
 * `node warm.mjs <result.json> <service.mjs> <baseline.mjs> <event JSON> <iterations> <warm-up> [name]`;
 * the samples (milliseconds) are written to `result.json`.
 */

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const [resultPath, servicePath, baselinePath, eventJson, iterationsArg, warmupArg, functionName = 'bench'] =
  process.argv.slice(2);
if (!resultPath || !servicePath || !baselinePath || !eventJson) {
  throw new Error(
    'usage: warm.mjs <result.json> <service.mjs> <baseline.mjs> <event JSON> <n> <warm-up> [name]',
  );
}
const iterations = Number(iterationsArg);
const warmup = Number(warmupArg);

const load = async (path: string): Promise<Handler> =>
  ((await import(pathToFileURL(path).href)) as { handler: Handler }).handler;

const service = await load(servicePath);
const baseline = await load(baselinePath);

const statuses = { service: new Set<number>(), baseline: new Set<number>() };

const time = async (handler: Handler, which: 'service' | 'baseline'): Promise<number> => {
  // A fresh event and context per invocation, built outside the timed part (middy may mutate them).
  const event: unknown = freshRequest(JSON.parse(eventJson));
  const context = lambdaContext(functionName, BENCH_CONTEXT);
  const started = performance.now();
  const result = await handler(event, context);
  const elapsed = performance.now() - started;
  statuses[which].add(outcomeOf(result));
  return elapsed;
};

for (let index = 0; index < warmup; index++) {
  await time(service, 'service');
  await time(baseline, 'baseline');
}

const samples = { service: [] as number[], baseline: [] as number[] };
for (let index = 0; index < iterations; index++) {
  if (index % 2 === 0) {
    samples.service.push(await time(service, 'service'));
    samples.baseline.push(await time(baseline, 'baseline'));
  } else {
    samples.baseline.push(await time(baseline, 'baseline'));
    samples.service.push(await time(service, 'service'));
  }
}

writeFileSync(
  resultPath,
  `${JSON.stringify({
    service: samples.service,
    baseline: samples.baseline,
    statuses: { service: [...statuses.service], baseline: [...statuses.baseline] },
  })}\n`,
);
process.exit(0);
