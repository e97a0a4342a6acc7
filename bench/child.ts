import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ENV } from '#shared/config';
import { lambdaContext } from '#tools/lambda/context';
import { BENCH_CONTEXT, freshRequest, outcomeOf } from './lambda-context';
import { adminFor, restorerOf } from './tables';

/**
 * The bench's stand-in for Lambda's runtime, on the Lambda's Node with the function's environment:
 * `child.mjs <result.json> <iterations> <warm-up> <event JSON> <name> <bundle>...`. It times the
 * import of each bundle (a fresh process's first is a cold start's init), then invokes them in
 * turn, the order alternating so that drift hits all alike. Results go to `result.json`.
 */

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const [resultPath = '', iterations = '0', warmup = '0', eventJson = '', name = 'bench', ...bundles] =
  process.argv.slice(2);
const event: unknown = JSON.parse(eventJson);

const loads: number[] = [];
const handlers: Handler[] = [];
for (const bundle of bundles) {
  const started = performance.now();
  const module: { handler: Handler } = await import(pathToFileURL(bundle).href);
  loads.push(performance.now() - started);
  handlers.push(module.handler);
}

// Made after the imports are timed: the harness's own client weighs on no bundle's init.
const restore = restorerOf(
  event,
  () => adminFor(process.env[ENV.dynamoDbEndpoint] ?? ''),
  process.env[ENV.tables.pets] ?? '',
);
const samples = handlers.map((): number[] => []);
const statuses = handlers.map(() => new Set<number>());
for (let round = -Number(warmup); round < Number(iterations); round++) {
  const order = handlers.map((handler, index) => ({ handler, index }));
  for (const { handler, index } of round % 2 === 0 ? order : order.reverse()) {
    // A fresh event and context per invocation, made before the clock starts.
    const request = freshRequest(event);
    const context = lambdaContext(name, BENCH_CONTEXT);
    const started = performance.now();
    statuses[index]?.add(outcomeOf(await handler(request, context)));
    if (round >= 0) samples[index]?.push(performance.now() - started);
    await restore();
  }
}

writeFileSync(
  resultPath,
  `${JSON.stringify({ loads, samples, statuses: statuses.map((set) => [...set]) })}\n`,
);
// The SDK keeps its connection alive, as in Lambda: nothing more to wait for.
process.exit(0);
