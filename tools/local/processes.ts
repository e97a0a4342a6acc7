import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Other processes of this machine, from /proc on Linux, from `ps` elsewhere (macOS). */

const hasProc = (): boolean => existsSync('/proc/self/cmdline');

/** The arguments of process `pid` (program first), or undefined when it is not running. */
export const argumentsOf = (pid: number): string[] | undefined => {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (hasProc()) {
    try {
      const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      // A zombie (ended, not yet reaped) has an empty command line: it is not running.
      return text === '' ? undefined : text.replace(/\0$/, '').split('\0');
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  const line = ps.status === 0 ? ps.stdout.trim() : '';
  return line === '' ? undefined : line.split(' ');
};

export const parentOf = (pid: number): number | undefined => {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (hasProc()) {
    try {
      // The fields after the command's name, which is in parentheses and may hold anything.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return Number.isInteger(parent) && parent > 0 ? parent : undefined;
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
  const parent = Number(ps.stdout.trim());
  return ps.status === 0 && Number.isInteger(parent) && parent > 0 ? parent : undefined;
};

/** A shell run with `-c` to run one command, as npm runs a script: `sh -c "node …"`. */
const isCommandShell = (args: readonly string[]): boolean =>
  /(^|\/)(sh|bash|dash|zsh)$/.test(args[0] ?? '') && args[1] === '-c';

/** The parent, and while it is a one-command shell its parent too (npm: its `sh -c` outlives a killed npm). */
export const launchers = (): number[] => {
  const found: number[] = [];
  let pid: number | undefined = process.ppid;
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

export const processesWhere = (matches: (args: readonly string[]) => boolean): number[] => {
  if (hasProc()) {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => {
        const args = argumentsOf(pid);
        return args !== undefined && matches(args);
      });
  }
  const ps = spawnSync('ps', ['-e', '-o', 'pid=,args='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && matches((match[2] ?? '').split(' ')))
    .map((match) => Number(match[1]));
};

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
