import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs `<node> <script> <result file> ...args` with exactly `env`, its stdout (the function's logs)
 * discarded, and returns what it wrote to the result file. Fails with its stderr when it fails.
 * `node` is the binary of the children (bench/lambda-node.ts), not necessarily this process's.
 */
export const runChild = async <T>(
  node: string,
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  workDir: string,
): Promise<T> => {
  const resultPath = join(workDir, `result-${randomUUID()}.json`);
  await new Promise<void>((resolveRun, reject) => {
    const child = spawn(node, [script, resultPath, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0
        ? resolveRun()
        : reject(new Error(`${script} exited with ${code ?? signal}: ${stderr.trim()}`)),
    );
  });
  try {
    return JSON.parse(readFileSync(resultPath, 'utf8')) as T;
  } finally {
    rmSync(resultPath, { force: true });
  }
};
