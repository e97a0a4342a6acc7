import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  argumentsOf,
  commandLineOf,
  endProcess,
  fromProc,
  fromPs,
  isRunning,
  launchers,
  NotPermittedError,
  ownCommandLine,
  parentOf,
  processesWhere,
} from '#tools/local/processes';

/**
 * What the local tools learn about other processes (the lock's owner, npm's launchers), checked
 * on real processes this file starts: `sleep`, shells, a program whose name holds parentheses, a
 * stopped one, one that ignores SIGTERM and a zombie.
 */

/** Above the highest process id Linux (2^22) and macOS give: no process has it. */
const NO_SUCH_PID = 4_194_305;
const hasProc = existsSync('/proc/self/stat');
const hasPs = spawnSync('ps', ['-p', String(process.pid)]).status === 0;
const isRoot = process.getuid?.() === 0;

interface Started {
  pid: number;
  child: ChildProcess;
  /** The signal that ended it (null when it exited by itself). */
  ended: Promise<NodeJS.Signals | null>;
}

const started: Started[] = [];
afterEach(() => {
  // Each starts in a group of its own: the group goes, the shells' children with it.
  for (const { pid, child } of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});

const start = async (command: string, args: string[], options: SpawnOptions = {}) => {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'], detached: true, ...options });
  const ended = once(child, 'exit').then(([, signal]) => signal as NodeJS.Signals | null);
  await once(child, 'spawn');
  const run: Started = { pid: child.pid as number, child, ended };
  started.push(run);
  return run;
};

const firstLine = async (child: ChildProcess): Promise<string> =>
  String((await once(child.stdout as NodeJS.ReadableStream, 'data'))[0]).trim();

/** Waits, as long as the test's time allows, until `value` gives something. */
const until = async <T>(value: () => T | undefined | false): Promise<T> => {
  for (;;) {
    const found = value();
    if (found !== undefined && found !== false) return found;
    await sleep(20);
  }
};

/** The state letter of /proc/PID/stat: S sleeping, T stopped, Z zombie. */
const stateOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat[stat.lastIndexOf(')') + 2];
};

/**
 * A zombie: `sh` starts a `sleep` in the background, then becomes `sleep` itself, which never
 * reaps a child. The background one is killed only then: had it ended before the `exec`, the
 * shell could have reaped it.
 */
const startZombie = async () => {
  const parent = await start('sh', ['-c', 'sleep 61 & echo $!; exec sleep 60']);
  const zombie = Number(await firstLine(parent.child));
  await until(() => argumentsOf(parent.pid)?.join(' ') === 'sleep 60');
  process.kill(zombie, 'SIGKILL');
  await until(() => stateOf(zombie) === 'Z');
  return zombie;
};

const tmp = mkdtempSync(join(tmpdir(), 'processes-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('argumentsOf', () => {
  it("gives a running process's arguments, program first, empty and spaced ones kept apart", async () => {
    const { pid } = await start('sh', ['-c', 'sleep 60; true', 'zero', '']);
    expect(argumentsOf(pid)).toEqual(['sh', '-c', 'sleep 60; true', 'zero', '']);
  });

  it('knows nothing of what is not a process id, nor of a process that does not exist', () => {
    for (const pid of [0, -1, 1.5, Number.NaN, NO_SUCH_PID]) expect(argumentsOf(pid)).toBeUndefined();
  });

  it.skipIf(!hasProc)('counts a zombie (ended, not yet reaped) as not running', async () => {
    const zombie = await startZombie();
    expect(argumentsOf(zombie)).toBeUndefined();
    expect(isRunning(zombie)).toBe(false);
    expect(processesWhere(() => true)).not.toContain(zombie);
  });
});

describe('parentOf', () => {
  it('gives the process that started it', async () => {
    const { pid } = await start('sleep', ['60']);
    expect(parentOf(pid)).toBe(process.pid);
  });

  it.skipIf(!hasProc)("reads past a program's name that holds spaces and parentheses", async () => {
    const program = join(tmp, 'a) b (c');
    copyFileSync('/usr/bin/sleep', program);
    const { pid } = await start(program, ['60']);
    expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toContain('(a) b (c)');
    expect(parentOf(pid)).toBe(process.pid);
  });

  it('gives no parent for the first process, for what is not a process id, nor for a process that does not exist', () => {
    for (const pid of [1, 0, -1, 1.5, Number.NaN, NO_SUCH_PID]) expect(parentOf(pid)).toBeUndefined();
  });
});

describe('launchers', () => {
  it('climbs through one-command shells to the first process that is not one', async () => {
    const outer = await start('sh', ['-c', 'sh -c "sleep 60; true"; true']);
    const inner = await until(() =>
      processesWhere((args) => args[0] === 'sh' && args[2] === 'sleep 60; true').find(
        (pid) => parentOf(pid) === outer.pid,
      ),
    );
    const sleeper = await until(() =>
      processesWhere((args) => args[0] === 'sleep').find((pid) => parentOf(pid) === inner),
    );
    expect(launchers(inner)).toEqual([inner, outer.pid, process.pid]);
    expect(launchers(sleeper)).toEqual([sleeper]);
  });

  it('knows a shell by its path too, and only a shell running one command with -c', async () => {
    const launchersOf = async (argv0: string, args: string[]) =>
      launchers((await start('sh', args, { argv0 })).pid);
    const run = ['-c', 'sleep 60; true'];
    expect(await launchersOf('/usr/bin/bash', run)).toHaveLength(2);
    expect(await launchersOf('zsh', run)).toHaveLength(2);
    expect(await launchersOf('nosh', run)).toHaveLength(1);
    expect(await launchersOf('shell', run)).toHaveLength(1);
    expect(await launchersOf('sh', ['-e', ...run])).toHaveLength(1);
  });

  it("starts from this process's parent, and never counts the first process or one that is gone", () => {
    expect(launchers()[0]).toBe(process.ppid);
    expect(launchers(1)).toEqual([]);
    expect(launchers(NO_SUCH_PID)).toEqual([]);
  });
});

describe('command lines', () => {
  it("joins a process's arguments with spaces, and has none for a process that does not exist", async () => {
    const { pid } = await start('sh', ['-c', 'sleep 60; true']);
    expect(commandLineOf(pid)).toBe('sh -c sleep 60; true');
    expect(commandLineOf(NO_SUCH_PID)).toBeUndefined();
  });

  it("gives this process's own command line", () => {
    expect(ownCommandLine()).toBe(commandLineOf(process.pid));
    // Its program is this Node.js (the script may be a worker's, which /proc names as its process's).
    expect(ownCommandLine().split(' ')[0]).toBe(process.execPath);
  });
});

describe('isRunning and processesWhere', () => {
  it('finds the running processes whose arguments match, and no longer one that has ended', async () => {
    const marker = String(60 + process.pid);
    const first = await start('sleep', [marker]);
    const second = await start('sleep', [marker]);
    const other = await start('sleep', ['60']);
    const mine = () => processesWhere((args) => args[0] === 'sleep' && args[1] === marker);
    expect(mine().sort()).toEqual([first.pid, second.pid].sort());
    expect(mine()).not.toContain(other.pid);
    expect(isRunning(first.pid)).toBe(true);
    first.child.kill('SIGKILL');
    await first.ended;
    expect(isRunning(first.pid)).toBe(false);
    expect(mine()).toEqual([second.pid]);
  });
});

describe.skipIf(!hasPs)('the ps source (macOS has no /proc), checked against /proc (needs ps)', () => {
  it.skipIf(!hasProc)('agrees with /proc about the same processes', async () => {
    const { pid } = await start('sleep', ['61']);
    const shell = await start('sh', ['-c', 'exec sleep 62']);
    await until(() => argumentsOf(shell.pid)?.[0] === 'sleep');
    for (const source of [fromPs, fromProc]) {
      expect(source.argumentsOf(pid)).toEqual(['sleep', '61']);
      expect(source.parentOf(pid)).toBe(process.pid);
      const running = new Map(source.running());
      expect(running.get(pid)).toEqual(['sleep', '61']);
      expect(running.get(shell.pid)).toEqual(['sleep', '62']);
      expect(running.get(process.pid)).toEqual(fromProc.argumentsOf(process.pid));
    }
  });

  it('knows nothing of a process that does not exist', () => {
    expect(fromPs.argumentsOf(NO_SUCH_PID)).toBeUndefined();
    expect(fromPs.parentOf(NO_SUCH_PID)).toBeUndefined();
    expect(fromPs.parentOf(1)).toBeUndefined();
  });
});

describe('endProcess', () => {
  it('ends a process with SIGTERM and returns once it is gone', async () => {
    const { pid, ended } = await start('sleep', ['60']);
    await endProcess(pid, 30_000);
    expect(await ended).toBe('SIGTERM');
    expect(isRunning(pid)).toBe(false);
  });

  it('ends a process that is not its child', async () => {
    const shell = await start('sh', ['-c', 'sleep 60; true']);
    const sleeper = await until(() =>
      processesWhere((args) => args[0] === 'sleep').find((pid) => parentOf(pid) === shell.pid),
    );
    await endProcess(sleeper);
    expect(isRunning(sleeper)).toBe(false);
    expect(await shell.ended).toBeNull();
  });

  it.skipIf(!hasProc)('ends a stopped process with SIGTERM', { timeout: 60_000 }, async () => {
    const { pid, ended } = await start('sleep', ['60']);
    process.kill(pid, 'SIGSTOP');
    await until(() => stateOf(pid) === 'T');
    await endProcess(pid, 30_000);
    expect(await ended).toBe('SIGTERM');
  });

  it('sends SIGKILL to a process that ignores SIGTERM, once the grace has passed', async () => {
    const { pid, child, ended } = await start('sh', ['-c', 'trap "" TERM; echo ready; exec sleep 60']);
    expect(await firstLine(child)).toBe('ready');
    const since = Date.now();
    await endProcess(pid, 250);
    expect(Date.now() - since).toBeGreaterThanOrEqual(250);
    expect(await ended).toBe('SIGKILL');
  });

  it('returns at once for a process that does not exist', async () => {
    await expect(endProcess(NO_SUCH_PID, 30_000)).resolves.toBeUndefined();
  });

  // As root every process may be signalled (and pid 1 must not be).
  it.skipIf(isRoot)("refuses another user's process", async () => {
    await expect(endProcess(1)).rejects.toThrow(NotPermittedError);
    await expect(endProcess(1)).rejects.toThrow('process 1 belongs to another user');
  });
});
