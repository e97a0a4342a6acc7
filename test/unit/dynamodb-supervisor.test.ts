import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type DynamoDbLocal,
  type DynamoDbLocalOptions,
  freePort,
  type ProcessExit,
  type SupervisorOptions,
  superviseDynamoDbLocal,
} from '#tools/local/dynamodb-local';

/**
 * How `npm start` keeps DynamoDB Local running. A Java process cannot be made to crash, or to
 * crash three times within a minute, on demand: the databases here are stand-ins whose exit the
 * test decides. Starting and stopping a real one is tested in test/integration/dynamodb-local.test.ts.
 */

interface FakeDatabase extends DynamoDbLocal {
  exit(exit: ProcessExit): void;
}

const ENDPOINT = 'http://127.0.0.1:8123';
const DATA = '/data/dynamodb';

const fakeDatabase = (pid: number): FakeDatabase => {
  let exit: (value: ProcessExit) => void = () => undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    exit = resolve;
  });
  let stopping = false;
  return {
    endpoint: ENDPOINT,
    port: 8123,
    pid,
    scratchDir: `/tmp/dynamodb-local-scratch-${pid}`,
    exited,
    get stopping() {
      return stopping;
    },
    stop: async () => {
      stopping = true;
      exit({ code: null, signal: 'SIGTERM' });
    },
    exit: (value) => exit(value),
  };
};

/** A supervisor over stand-ins: each start gives the next one; `events` is what it reported. */
const supervise = async (overrides: Partial<SupervisorOptions> = {}) => {
  const started: FakeDatabase[] = [];
  const starts: DynamoDbLocalOptions[] = [];
  const events: string[] = [];
  const supervisor = await superviseDynamoDbLocal({
    dataDir: DATA,
    onRestart: async (endpoint) => {
      events.push(`restart ${endpoint}`);
    },
    onGiveUp: (message) => events.push(`give up: ${message}`),
    log: (line) => events.push(`log: ${line}`),
    start: async (options) => {
      starts.push(options);
      const database = fakeDatabase(100 + started.length);
      started.push(database);
      return database;
    },
    ...overrides,
  });
  return { supervisor, started, starts, events };
};

/** Lets the supervisor react to an exit (it does so in promise callbacks). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.useRealTimers();
});

describe('the DynamoDB Local supervisor', () => {
  it('starts DynamoDB Local with the data directory, on a port of its choosing', async () => {
    const { supervisor, starts } = await supervise();

    expect(starts).toEqual([{ dataDir: DATA }]);
    expect([supervisor.endpoint, supervisor.pid]).toEqual([ENDPOINT, 100]);
  });

  it('starts it on a port other than the one it is told to avoid: the API port, not yet listened on', async () => {
    const { supervisor, starts } = await supervise({ avoidPort: 3000 });

    expect(starts).toEqual([{ dataDir: DATA, avoidPort: 3000 }]);
    await supervisor.stop();
  });

  it('never picks the port it is told to avoid, even one that is free', async () => {
    const taken = await freePort();

    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort(taken)));

    expect(ports).not.toContain(taken);
  });

  it('starts it again on the same port with the same data when it dies, and says so', async () => {
    const { supervisor, started, starts, events } = await supervise();

    started[0]?.exit({ code: null, signal: 'SIGKILL' });
    await settle();

    expect(starts).toEqual([{ dataDir: DATA }, { port: 8123, dataDir: DATA }]);
    expect(events).toEqual([
      `log: DynamoDB Local ended by SIGKILL; starting it again on port 8123 with the data in ${DATA}`,
      `restart ${ENDPOINT}`,
      `log: DynamoDB Local is back at ${ENDPOINT}`,
    ]);
    expect(supervisor.pid).toBe(101);
  });

  it('tells the PID of each DynamoDB Local it starts, the first and every new one (for the lock)', async () => {
    const pids: (number | undefined)[] = [];
    const { started } = await supervise({ onStart: (pid) => pids.push(pid) });

    started[0]?.exit({ code: null, signal: 'SIGKILL' });
    await settle();

    expect(pids).toEqual([100, 101]);
  });

  it('keeps watching the one it started again', async () => {
    const { started, events } = await supervise();

    started[0]?.exit({ code: 1, signal: null });
    await settle();
    started[1]?.exit({ code: 137, signal: null });
    await settle();

    expect(started).toHaveLength(3);
    expect(events.filter((event) => event.startsWith('log: DynamoDB Local exited'))).toEqual([
      `log: DynamoDB Local exited with code 1; starting it again on port 8123 with the data in ${DATA}`,
      `log: DynamoDB Local exited with code 137; starting it again on port 8123 with the data in ${DATA}`,
    ]);
  });

  it('gives up on the fourth stop within a minute, saying where the data is', async () => {
    const { started, events } = await supervise();

    for (let index = 0; index < 4; index += 1) {
      started[index]?.exit({ code: 1, signal: null });
      await settle();
    }

    expect(started).toHaveLength(4);
    expect(events.at(-1)).toBe(
      `give up: DynamoDB Local exited with code 1, its 4th stop within 60 s: giving up. Its data is in ${DATA}.`,
    );
  });

  it('counts only the stops within the window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const { started, events } = await supervise({ windowMs: 1_000 });
    const crash = async (index: number) => {
      started[index]?.exit({ code: 1, signal: null });
      await settle();
    };

    for (const index of [0, 1, 2]) await crash(index);
    vi.setSystemTime(1_001_500);
    for (const index of [3, 4, 5]) await crash(index);
    const beforeLast = started.length;
    await crash(6);

    // Three stops at 0 s are forgotten by 1.5 s: the fourth then is the first of its window.
    expect(beforeLast).toBe(7);
    expect(started).toHaveLength(7);
    expect(events.at(-1)).toBe(
      `give up: DynamoDB Local exited with code 1, its 4th stop within 1 s: giving up. Its data is in ${DATA}.`,
    );
  });

  it('still counts a stop exactly one window old', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const { started, events } = await supervise({ windowMs: 1_000, maxRestarts: 1 });

    started[0]?.exit({ code: 1, signal: null });
    await settle();
    vi.setSystemTime(1_001_000);
    started[1]?.exit({ code: 1, signal: null });
    await settle();

    expect(started).toHaveLength(2);
    expect(events.at(-1)).toMatch(/^give up: DynamoDB Local exited with code 1, its 2th stop within 1 s/);
  });

  it('gives up, saying why, when it cannot be started again', async () => {
    let starts = 0;
    const first = fakeDatabase(100);
    const { events } = await supervise({
      start: async () => {
        starts += 1;
        if (starts > 1) throw new Error('DynamoDB Local did not answer within 30000 ms');
        return first;
      },
    });

    first.exit({ code: 1, signal: null });
    await settle();

    expect(events.at(-1)).toBe(
      'give up: DynamoDB Local exited with code 1 and could not be started again: DynamoDB Local did not answer within 30000 ms',
    );
  });

  it('does nothing when the database stops because it was asked to', async () => {
    const { supervisor, started, events } = await supervise();

    await supervisor.stop();
    await settle();
    const alone = fakeDatabase(200);
    await alone.stop();

    expect(started).toHaveLength(1);
    expect(started[0]?.stopping).toBe(true);
    expect(events).toEqual([]);
  });

  it('ignores an exit of a database that was being stopped', async () => {
    const { started, events } = await supervise();

    await started[0]?.stop();
    await settle();

    expect(started).toHaveLength(1);
    expect(events).toEqual([]);
  });

  it('stops the one it was starting again when it is stopped meanwhile, and reports no restart', async () => {
    let release: () => void = () => undefined;
    const second = fakeDatabase(101);
    const first = fakeDatabase(100);
    const { supervisor, events } = await supervise({
      start: async (options) => {
        if (!options.port) return first;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return second;
      },
    });

    first.exit({ code: 1, signal: null });
    await settle();
    const stopped = supervisor.stop();
    release();
    await stopped;
    await settle();

    expect(second.stopping).toBe(true);
    expect(events).toEqual([
      `log: DynamoDB Local exited with code 1; starting it again on port 8123 with the data in ${DATA}`,
    ]);
  });
});
