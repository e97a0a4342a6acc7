import pLimit from 'p-limit';
import type { BundlePair, HarnessOptions } from './bundles';
import { runChild } from './child-process';
import { functionEnvironment } from './function-env';
import { targetOf } from './functions';
import { type BenchFunction, EXPECTED_STATUS } from './lambda-events';
import { type Summary, summarise } from './stats';

interface WarmResult {
  readonly service: number[];
  readonly baseline: number[];
  readonly statuses: { readonly service: number[]; readonly baseline: number[] };
}

export interface WarmRow {
  readonly name: BenchFunction;
  readonly service: Summary;
  readonly baseline: Summary;
}

export interface WarmOptions extends HarnessOptions {
  readonly iterations: number;
  readonly warmup: number;
  /** Processes at a time: 1 for a run whose timings count. */
  readonly concurrency: number;
}

/**
 * Warm invocations: per function one process that loads the service bundle and its baseline and
 * invokes them in turn (bench/child/warm.ts), so both see the same machine and the same DynamoDB
 * Local at the same moment. The time is the handler's own: from the call to its answer.
 */
export const measureWarm = async (options: WarmOptions): Promise<WarmRow[]> => {
  const limit = pLimit(options.concurrency);
  const measure = async (pair: BundlePair): Promise<WarmRow> => {
    const result = await runChild<WarmResult>(
      options.node,
      options.harness,
      [
        pair.service.file,
        pair.baseline.file,
        JSON.stringify(options.events[pair.name]),
        String(options.iterations),
        String(options.warmup),
        pair.name,
      ],
      functionEnvironment({ endpoint: options.endpoint, names: options.names, functionName: pair.name }),
      options.workDir,
    );
    const expected = EXPECTED_STATUS[pair.name];
    for (const which of ['service', 'baseline'] as const) {
      const statuses = result.statuses[which];
      if (statuses.length !== 1 || statuses[0] !== expected) {
        throw new Error(`warm ${which} ${pair.name} answered ${statuses.join(', ')}, not ${expected}`);
      }
    }
    options.progress?.(`warm: ${pair.name} done`);
    return { name: pair.name, service: summarise(result.service), baseline: summarise(result.baseline) };
  };
  // One function at a time unless the run does not judge timings (`concurrency`).
  const pairs = options.pairs.filter((candidate) => !targetOf(candidate.name).variantOf);
  return Promise.all(pairs.map((pair) => limit(() => measure(pair))));
};
