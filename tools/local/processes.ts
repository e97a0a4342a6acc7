import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** What this machine runs (every process, its arguments, its parent), from /proc on Linux, from `ps` elsewhere (macOS). */
export interface ProcessTable {
  /** The arguments of process `pid` (program first), or undefined when it is not running. */
  argumentsOf(pid: number): string[] | undefined;
  parentOf(pid: number): number | undefined;
  running(): [pid: number, args: string[]][];
}

const asPid = (value: number): number | undefined =>
  Number.isInteger(value) && value > 0 ? value : undefined;

const readProc = (path: string): string | undefined => {
  try {
    return readFileSync(`/proc/${path}`, 'utf8');
  } catch {
    return undefined;
  }
};

export const fromProc: ProcessTable = {
  argumentsOf: (pid) => {
    const text = readProc(`${pid}/cmdline`);
    // A zombie (ended, not yet reaped) has an empty command line: it is not running.
    return text ? text.replace(/\0$/, '').split('\0') : undefined;
  },
  parentOf: (pid) => {
    // The fields after the command's name, which is in parentheses and may hold anything.
    const stat = readProc(`${pid}/stat`);
    return asPid(Number(stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  },
  running: () =>
    readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .flatMap((name) => {
        const args = fromProc.argumentsOf(Number(name));
        return args ? [[Number(name), args] as [number, string[]]] : [];
      }),
};

const ps = (...args: string[]): string => {
  const run = spawnSync('ps', args, { encoding: 'utf8' });
  return run.status === 0 ? run.stdout : '';
};

export const fromPs: ProcessTable = {
  argumentsOf: (pid) => {
    const line = ps('-o', 'args=', '-p', String(pid)).trim();
    return line === '' ? undefined : line.split(' ');
  },
  parentOf: (pid) => asPid(Number(ps('-o', 'ppid=', '-p', String(pid)).trim())),
  running: () =>
    ps('-e', '-o', 'pid=,args=')
      .split('\n')
      .flatMap((line) => {
        const match = /^\s*(\d+)\s+(.*)$/.exec(line);
        return match ? [[Number(match[1]), (match[2] ?? '').split(' ')] as [number, string[]]] : [];
      }),
};

const table: ProcessTable = existsSync('/proc/self/cmdline') ? fromProc : fromPs;

export const argumentsOf = (pid: number) => (asPid(pid) ? table.argumentsOf(pid) : undefined);

export const parentOf = (pid: number) => (asPid(pid) ? table.parentOf(pid) : undefined);

/** A shell run with `-c` to run one command, as npm runs a script: `sh -c "node …"`. */
const isCommandShell = (args: readonly string[]): boolean =>
  /(^|\/)(sh|bash|dash|zsh)$/.test(args[0] ?? '') && args[1] === '-c';

/** The parent, and while it is a one-command shell its parent too (npm: its `sh -c` outlives a killed npm). */
export const launchers = (from = process.ppid): number[] => {
  const found: number[] = [];
  let pid: number | undefined = from;
  while (pid !== undefined && pid > 1) {
    const args = argumentsOf(pid);
    if (!args) break;
    found.push(pid);
    pid = isCommandShell(args) ? parentOf(pid) : undefined;
  }
  return found;
};

export const commandLineOf = (pid: number): string | undefined => argumentsOf(pid)?.join(' ');

export const ownCommandLine = (): string => commandLineOf(process.pid) ?? process.argv.join(' ');

/** Whether process `pid` runs (a process of another user counts: it exists). */
export const isRunning = (pid: number): boolean => argumentsOf(pid) !== undefined;

export const processesWhere = (matches: (args: readonly string[]) => boolean): number[] =>
  table
    .running()
    .filter(([, args]) => matches(args))
    .map(([pid]) => pid);

/** A process this one may not signal (another user's). */
export class NotPermittedError extends Error {
  override readonly name = 'NotPermittedError';
}

/** Ends process `pid`, not a child of this one (no exit event): SIGTERM, SIGKILL after `graceMs`. */
export const endProcess = async (pid: number, graceMs = 5_000): Promise<void> => {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EPERM') {
        throw new NotPermittedError(`process ${pid} belongs to another user`);
      }
      // ESRCH: gone already.
    }
  };
  signal('SIGTERM');
  // A stopped process (SIGSTOP, Ctrl+Z) keeps SIGTERM pending until it runs again.
  signal('SIGCONT');
  const killAt = Date.now() + graceMs;
  let killed = false;
  while (isRunning(pid)) {
    if (!killed && Date.now() >= killAt) {
      signal('SIGKILL');
      killed = true;
    }
    await sleep(50);
  }
};
