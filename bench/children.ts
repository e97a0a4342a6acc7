import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { type ChildTarget, childEnvironment } from './targets';

export interface Children {
  readonly node: string;
  readonly harness: string;
  readonly workDir: string;
  readonly endpoint: string;
  readonly names: TableNames;
}

/** What a child measured, each bundle's: its import and its invocations, by the clock and in CPU time (ms). */
export interface ChildResult {
  readonly loads: number[];
  readonly loadsCpu: number[];
  readonly samples: number[][];
  readonly samplesCpu: number[][];
}

/** Runs the harness on `bundles` (logs discarded): each import's time, then `iterations` timed invocations after `warmup`. */
export const runChild = async (
  children: Children,
  target: ChildTarget,
  bundles: readonly string[],
  {
    iterations = 1,
    warmup = 0,
    env = {},
  }: { iterations?: number; warmup?: number; env?: Record<string, string> } = {},
): Promise<ChildResult> => {
  const resultPath = join(children.workDir, `result-${randomUUID()}.json`);
  const args = [resultPath, String(iterations), String(warmup), JSON.stringify(target.event), target.name];
  await new Promise<void>((done, fail) => {
    const child = spawn(children.node, [children.harness, ...args, ...bundles], {
      env: { ...childEnvironment(target, children.endpoint, children.names), ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.once('error', fail);
    child.once('exit', (code, signal) =>
      code === 0
        ? done()
        : fail(new Error(`${target.name} child exited with ${code ?? signal}: ${stderr.trim()}`)),
    );
  });
  try {
    const result: ChildResult & { statuses: number[][] } = JSON.parse(readFileSync(resultPath, 'utf8'));
    const statuses = result.statuses.flat();
    if (statuses.some((status) => status !== target.status)) {
      throw new Error(
        `${target.name} answered ${statuses.join(', ')}, not ${target.status}: ${bundles.join(', ')}`,
      );
    }
    return result;
  } finally {
    rmSync(resultPath, { force: true });
  }
};
