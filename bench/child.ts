import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '#tools/lambda/context';
import { BENCH_CONTEXT, freshRequest, outcomeOf, removesItsPet } from './lambda-context';

/** Lambda's stand-in: `child.mjs <result.json> <iterations> <warm-up> <event> <name> <bundle>...`. */

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const [resultPath = '', iterations = '0', warmup = '0', eventJson = '', name = 'bench', ...bundles] =
  process.argv.slice(2);
const event: unknown = JSON.parse(eventJson);

/** Milliseconds of CPU this process has used (every thread), beside the clock's: others' work on the machine does not count. */
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const loads: number[] = [];
const loadsCpu: number[] = [];
const handlers: Handler[] = [];
for (const bundle of bundles) {
  // The clock inside the CPU's reading: neither counts the other.
  const startedCpu = cpuNow();
  const started = performance.now();
  const module: { handler: Handler } = await import(pathToFileURL(bundle).href);
  loads.push(performance.now() - started);
  loadsCpu.push(cpuNow() - startedCpu);
  handlers.push(module.handler);
}

// Loaded after the imports are timed, and only for a removal: the SDK weighs on no bundle's init.
const subject = removesItsPet(event)
  ? await import('./tables').then(({ freshSubjectInChild }) => freshSubjectInChild())
  : async () => {};
const samples = handlers.map((): number[] => []);
const samplesCpu = handlers.map((): number[] => []);
const statuses = handlers.map(() => new Set<number>());
for (let round = -Number(warmup); round < Number(iterations); round++) {
  const order = handlers.map((handler, index) => ({ handler, index }));
  for (const { handler, index } of round % 2 === 0 ? order : order.reverse()) {
    // A fresh event and context per invocation, made before the clock starts.
    const request = freshRequest(event);
    await subject(request);
    const context = lambdaContext(name, BENCH_CONTEXT);
    const startedCpu = cpuNow();
    const started = performance.now();
    const outcome = outcomeOf(await handler(request, context));
    const [elapsed, elapsedCpu] = [performance.now() - started, cpuNow() - startedCpu];
    statuses[index]?.add(outcome);
    if (round >= 0) {
      samples[index]?.push(elapsed);
      samplesCpu[index]?.push(elapsedCpu);
    }
  }
}

writeFileSync(
  resultPath,
  `${JSON.stringify({ loads, loadsCpu, samples, samplesCpu, statuses: statuses.map((set) => [...set]) })}\n`,
);
// The SDK keeps its connection alive, as in Lambda: nothing more to wait for.
process.exit(0);
