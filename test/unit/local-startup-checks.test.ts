import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_DIR, LOCAL_HOST, LocalConfigError, readLocalSettings } from '#tools/local/settings';
import {
  assertDynamoDbReachable,
  assertJava,
  assertPortFree,
  assertSettingsUsable,
  ensureDataDir,
  JavaCompilerMissingError,
  JavaMissingError,
  type JavaRun,
  JavaTooOldError,
  listenError,
  REACHABLE_TIMEOUT_MS,
} from '#tools/local/startup-checks';

/**
 * What `npm start` checks before it starts anything, each failure one LocalConfigError that names
 * the setting to change.
 */

let holder: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
  holder = undefined;
});

/** What `act` throws (vitest's toThrow(regex) also passes when `undefined` is thrown). */
const thrownBy = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  return 'nothing thrown';
};

const holdAPort = async (): Promise<number> => {
  const server = createServer((socket) => sockets.push(socket));
  holder = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
};

describe('the port', () => {
  it('is free when nothing listens on it, and port 0 always is', async () => {
    const port = await holdAPort();
    await new Promise((resolve) => holder?.close(resolve));
    holder = undefined;

    await expect(assertPortFree(port, '127.0.0.1')).resolves.toBeUndefined();
    await expect(assertPortFree(0, '127.0.0.1')).resolves.toBeUndefined();
  });

  it('in use is refused, naming PORT and a port to try instead', async () => {
    const port = await holdAPort();

    await expect(assertPortFree(port, '127.0.0.1')).rejects.toThrow(
      new LocalConfigError(
        `Port ${port} on 127.0.0.1 is in use: stop what holds it, or set PORT to a free port (e.g. PORT=${port + 1}).`,
      ),
    );
  });

  it('that cannot be listened on for another reason is refused with the reason and the setting', () => {
    const error = Object.assign(new Error('permission denied'), { code: 'EACCES' });

    expect(listenError(error, 80, '127.0.0.1').message).toBe(
      'Cannot listen on 127.0.0.1:80 (EACCES): set PORT to another port.',
    );
    expect(listenError(new TypeError('odd'), 80, '127.0.0.1', 'MY_PORT').message).toBe(
      'Cannot listen on 127.0.0.1:80 (TypeError): set MY_PORT to another port.',
    );
    expect(listenError({}, 80, '127.0.0.1').message).toBe(
      'Cannot listen on 127.0.0.1:80 (unknown error): set PORT to another port.',
    );
  });
});

describe('a DynamoDB endpoint', () => {
  it('that does not answer within a second is refused, naming DYNAMODB_ENDPOINT and what to do', async () => {
    expect(REACHABLE_TIMEOUT_MS).toBe(1_000);
    await expect(assertDynamoDbReachable('http://127.0.0.1:9')).rejects.toThrow(
      new LocalConfigError(
        'No DynamoDB answers at DYNAMODB_ENDPOINT=http://127.0.0.1:9 (ECONNREFUSED): start it, fix DYNAMODB_ENDPOINT, or unset it to use the embedded DynamoDB Local.',
      ),
    );
  });

  it('that accepts connections but never answers is refused within about a second', async () => {
    // A server that takes the connection and says nothing, as a stalled DynamoDB would.
    const port = await holdAPort();
    const started = Date.now();

    await expect(assertDynamoDbReachable(`http://127.0.0.1:${port}`)).rejects.toThrow(
      /^No DynamoDB answers at DYNAMODB_ENDPOINT=http:\/\/127\.0\.0\.1:\d+ \(ETIMEDOUT\): start it, fix DYNAMODB_ENDPOINT, or unset it to use the embedded DynamoDB Local\.$/,
    );
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('is not looked for when none is set: the Java that DynamoDB Local needs is, instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-startup-checks-'));
    const asked: string[][] = [];
    // A stand-in for `java`, as a JVM's start costs a loaded machine seconds.
    const java: JavaRun = (args) => {
      asked.push(args);
      return { error: undefined, status: 0, stdout: 'java.base@17.0.2\njdk.compiler@17.0.2\n', stderr: '' };
    };
    try {
      await expect(
        assertSettingsUsable({ dataDir: dir, port: 0, host: '127.0.0.1' }, java),
      ).resolves.toBeUndefined();
      expect(asked).toEqual([['--list-modules']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the data directory', () => {
  it('is created level by level, and left with no file of the check in it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-startup-checks-'));
    try {
      const wanted = join(dir, 'a', 'b');

      ensureDataDir(wanted);

      expect(existsSync(wanted)).toBe(true);
      expect(readdirSync(wanted)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('that cannot be created or written in is refused with a LocalConfigError', () => {
    expect(thrownBy(() => ensureDataDir('/proc/petstore-data'))).toBeInstanceOf(LocalConfigError);
    expect(thrownBy(() => ensureDataDir('/proc'))).toBeInstanceOf(LocalConfigError);
  });

  it('that cannot be created is refused, naming the setting it is given and the directory', () => {
    expect(() => ensureDataDir('/proc/petstore-data', 'MY_DATA')).toThrow(
      /^MY_DATA=\/proc\/petstore-data cannot be used: cannot create \/proc\/petstore-data \(ENOENT\)\. Set MY_DATA to a directory you can write to\.$/,
    );
  });

  it('that cannot be written in is refused, naming PETSTORE_DATA_DIR', () => {
    expect(() => ensureDataDir('/proc')).toThrow(
      /^PETSTORE_DATA_DIR=\/proc cannot be used: cannot write a file in it \(\w+\)\. Set PETSTORE_DATA_DIR to a directory you can write to\.$/,
    );
  });
});

describe('the Java on PATH', () => {
  /** A `java` answering each argument list as a real one of that version does (spawnSync's result). */
  const javaAnswering =
    (answers: Record<string, { status: number; stdout?: string; stderr?: string }>): JavaRun =>
    (args) => {
      const answer = answers[args.join(' ')] ?? { status: 1, stderr: `Unrecognized option: ${args[0]}` };
      return { error: undefined, stdout: '', stderr: '', ...answer };
    };
  const MODULES = (major: string) => `java.base@${major}\njava.sql@${major}\njdk.compiler@${major}\n`;

  it('is accepted from 17 on, with the compiler module the launcher needs, asking nothing more', () => {
    const asked: string[][] = [];
    const java = javaAnswering({ '--list-modules': { status: 0, stdout: MODULES('17.0.2') } });
    expect(() =>
      assertJava((args) => {
        asked.push(args);
        return java(args);
      }),
    ).not.toThrow();
    expect(asked).toEqual([['--list-modules']]);
    expect(() =>
      assertJava(javaAnswering({ '--list-modules': { status: 0, stdout: MODULES('21') } })),
    ).not.toThrow();
  });

  it('missing, or one that cannot run or names no version, is JavaMissingError', () => {
    const missing: JavaRun = () => ({
      error: new Error('spawnSync java ENOENT'),
      status: null,
      stdout: '',
      stderr: '',
    });
    const macStub = javaAnswering({ '-version': { status: 1, stderr: 'No Java runtime present' } });
    const noVersion = javaAnswering({ '--list-modules': { status: 0, stdout: 'jdk.compiler@17\n' } });
    const unreadable = javaAnswering({ '-version': { status: 0, stderr: 'openjdk, a build of some kind' } });

    for (const java of [missing, macStub, noVersion, unreadable]) {
      expect(() => assertJava(java)).toThrow(new JavaMissingError());
    }
  });

  it.each([
    ['11, which lists its modules', { '--list-modules': { status: 0, stdout: MODULES('11.0.2') } }, 11],
    ['16, the last one too old', { '--list-modules': { status: 0, stdout: MODULES('16.0.1') } }, 16],
    [
      '8, which knows no --list-modules',
      { '-version': { status: 0, stderr: 'java version "1.8.0_392"\n' } },
      8,
    ],
    [
      '17 that failed to list its modules',
      { '-version': { status: 0, stderr: 'openjdk version "17.0.2" 2022-01-18\n' } },
      17,
    ],
  ])(
    'older than 17, or unable to list its modules, is JavaTooOldError naming the version (Java %s)',
    (_, answers, major) => {
      expect(() => assertJava(javaAnswering(answers))).toThrow(new JavaTooOldError(major));
      expect(new JavaTooOldError(major).message).toBe(
        `DynamoDB Local needs Java 17 or newer, and \`java\` on PATH is Java ${major}. Install Java 17 or newer (Debian/Ubuntu: \`sudo apt-get install -y openjdk-17-jre-headless\`), or set DYNAMODB_ENDPOINT to a DynamoDB you already run.`,
      );
    },
  );

  it('without the jdk.compiler module is JavaCompilerMissingError, even where another line names it', () => {
    const jre = javaAnswering({
      '--list-modules': { status: 0, stdout: 'java.base@21.0.1\njava.sql@21.0.1 requires jdk.compiler@21\n' },
    });
    expect(() => assertJava(jre)).toThrow(new JavaCompilerMissingError());
    expect(new JavaCompilerMissingError().name).toBe('JavaCompilerMissingError');
  });
});

describe('the settings', () => {
  it('listen on loopback only', () => {
    expect(LOCAL_HOST).toBe('127.0.0.1');
    expect(new LocalConfigError('x').name).toBe('LocalConfigError');
  });

  it('read port 0 and 65535, and a blank variable as unset', () => {
    expect(readLocalSettings({ PORT: '0' }, '/work').port).toBe(0);
    expect(readLocalSettings({ PORT: '65535' }, '/work').port).toBe(65_535);
    expect(readLocalSettings({ PORT: ' ', PETSTORE_API_KEY: ' ', PETSTORE_CACHE_DIR: ' ' }, '/work')).toEqual(
      {
        dataDir: '/work/.data',
        cacheDir: DEFAULT_CACHE_DIR,
        port: 3000,
        corsOrigins: ['*'],
        eventTargets: [],
      },
    );
  });

  it('take an https endpoint, and name PETSTORE_CORS_ORIGINS when its origins are wrong', () => {
    expect(
      readLocalSettings({ DYNAMODB_ENDPOINT: 'https://dynamodb.local:8000' }, '/work').dynamoDbEndpoint,
    ).toBe('https://dynamodb.local:8000');
    expect(() => readLocalSettings({ DYNAMODB_ENDPOINT: 'ftp://x' })).toThrow(
      'DYNAMODB_ENDPOINT must be an http(s) URL such as http://127.0.0.1:8000, not "ftp://x"',
    );
    expect(() => readLocalSettings({ PETSTORE_CORS_ORIGINS: 'app.example.com' })).toThrow(
      new LocalConfigError(
        'PETSTORE_CORS_ORIGINS: "app.example.com" is not an origin such as https://app.example.com',
      ),
    );
  });
});
