import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '#tools/lambda/context';
import { BENCH_CONTEXT, freshRequest, outcomeOf } from './lambda-context';

/**
 * A child process of the bench, in place of Lambda's runtime: built by esbuild into the work
 * directory and run on the Lambda's Node (bench/lambda-node.ts) with the function's environment.
 *
 * - `child.mjs <result.json> cold <bundle> <event JSON> <name>`: imports the bundle and answers
 *   one event; `loadMs + firstInvokeMs` is what Lambda bills as init plus the first invocation.
 * - `child.mjs <result.json> time <iterations> <warm-up> <event JSON> <name> <bundle>...`:
 *   imports the bundles, then invokes each in turn (the order alternating, so that drift hits all
 *   alike), `warm-up` rounds unrecorded and `iterations` timed: the time from call to answer.
 *
 * The result goes to `result.json` as JSON (stdout is the functions' logs).
 */

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const [resultPath = '', mode, ...args] = process.argv.slice(2);

const load = async (bundle: string): Promise<Handler> => {
  const module: { handler: Handler } = await import(pathToFileURL(bundle).href);
  return module.handler;
};

/** Invokes with a fresh event and context, made before the clock starts; the status and the time. */
const call = async (handler: Handler, event: unknown, name: string) => {
  const request = freshRequest(event);
  const context = lambdaContext(name, BENCH_CONTEXT);
  const started = performance.now();
  const status = outcomeOf(await handler(request, context));
  return { status, ms: performance.now() - started };
};

const write = (result: unknown) => {
  writeFileSync(resultPath, `${JSON.stringify(result)}\n`);
  // The SDK keeps its connection alive, as in Lambda: nothing more to wait for.
  process.exit(0);
};

if (mode === 'cold') {
  const [bundle = '', eventJson = '', name = 'bench'] = args;
  const event: unknown = JSON.parse(eventJson);
  const started = performance.now();
  const handler = await load(bundle);
  const loadMs = performance.now() - started;
  const first = await call(handler, event, name);
  write({ loadMs, firstInvokeMs: first.ms, totalMs: loadMs + first.ms, status: first.status });
} else if (mode === 'time') {
  const [iterations = '0', warmup = '0', eventJson = '', name = 'bench', ...bundles] = args;
  const event: unknown = JSON.parse(eventJson);
  const handlers: Handler[] = [];
  for (const bundle of bundles) handlers.push(await load(bundle));
  const samples = handlers.map((): number[] => []);
  const statuses = handlers.map(() => new Set<number>());
  for (let round = -Number(warmup); round < Number(iterations); round++) {
    const order = handlers.map((handler, index) => ({ handler, index }));
    for (const { handler, index } of round % 2 === 0 ? order : order.reverse()) {
      const { status, ms } = await call(handler, event, name);
      statuses[index]?.add(status);
      if (round >= 0) samples[index]?.push(ms);
    }
  }
  write({ samples, statuses: statuses.map((set) => [...set]) });
} else {
  throw new Error(`usage: child.mjs <result.json> cold|time …, not ${mode}`);
}
