import { type ChildProcess, spawn, spawnSync } from 'node:child_process';

/**
 * Processes that stand for a data directory's owners in the lock tests. Both are a shell's, not a
 * Node.js process's, whose start costs a tenth of a CPU-second: the lock reads only a process's
 * PID, whether it runs, and its command line.
 */

/** The PID of a process that has run and exited: a server that is gone. */
export const deadPid = (): number => {
  const { pid } = spawnSync('true');
  if (pid === undefined) throw new Error('Could not run `true`');
  return pid;
};

/**
 * A process that runs until killed, with `args` on its command line (as DynamoDB Local's, or
 * almost): a shell that waits for a line on its standard input, which nothing writes.
 */
export const waitingWith = (args: readonly string[]): ChildProcess =>
  spawn('sh', ['-c', 'read line', 'sh', ...args], { stdio: ['pipe', 'ignore', 'ignore'] });
