import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { type ChildTarget, childEnvironment } from './targets';

/** Where the children (bench/child.ts) run: their Node, the harness, DynamoDB and its tables. */
export interface Children {
  /** The Lambda's Node when installed (bench/lambda-node.ts). */
  readonly node: string;
  readonly harness: string;
  readonly workDir: string;
  readonly endpoint: string;
  readonly names: TableNames;
}

/** One cold start: import of the bundle, then its first invocation (ms). */
export interface ColdStart {
  readonly loadMs: number;
  readonly firstInvokeMs: number;
  readonly totalMs: number;
}

/**
 * Runs the harness with `args` and the target's environment (plus `env`), its stdout (the
 * function's logs) discarded; what it wrote to its result file. Fails with its stderr.
 */
const runChild = async <T>(
  children: Children,
  target: ChildTarget,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<T> => {
  const resultPath = join(children.workDir, `result-${randomUUID()}.json`);
  await new Promise<void>((done, fail) => {
    const child = spawn(children.node, [children.harness, resultPath, ...args], {
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
    const result: T = JSON.parse(readFileSync(resultPath, 'utf8'));
    return result;
  } finally {
    rmSync(resultPath, { force: true });
  }
};

const expect = (target: ChildTarget, statuses: readonly number[], what: string) => {
  if (statuses.some((status) => status !== target.status)) {
    throw new Error(`${what} ${target.name} answered ${statuses.join(', ')}, not ${target.status}`);
  }
};

/** A cold start of `bundle` in a fresh process, answering the target's request. */
export const coldStart = async (
  children: Children,
  target: ChildTarget,
  bundle: string,
  env?: Readonly<Record<string, string>>,
): Promise<ColdStart> => {
  const result = await runChild<ColdStart & { status: number }>(
    children,
    target,
    ['cold', bundle, JSON.stringify(target.event), target.name],
    env,
  );
  expect(target, [result.status], `${bundle}:`);
  return result;
};

/** `iterations` timed invocations of each bundle after `warmup`, in one process: ms per bundle. */
export const timeCalls = async (
  children: Children,
  target: ChildTarget,
  bundles: readonly string[],
  iterations: number,
  warmup: number,
): Promise<number[][]> => {
  const { samples, statuses } = await runChild<{ samples: number[][]; statuses: number[][] }>(
    children,
    target,
    ['time', String(iterations), String(warmup), JSON.stringify(target.event), target.name, ...bundles],
  );
  expect(target, statuses.flat(), 'warm');
  return samples;
};
