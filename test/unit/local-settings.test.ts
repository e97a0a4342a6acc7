import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { LOCAL_SETTINGS } from '#shared/config';
import { LocalConfigError, localUsage, readLocalSettings } from '#tools/local/settings';
import { ensureDataDir } from '#tools/local/startup-checks';

describe('npm start settings', () => {
  it('are the variables LOCAL_SETTINGS lists, no more and no fewer: its usage and the docs name each', () => {
    const read = new Set<string>();
    const recording = new Proxy({} as Record<string, string | undefined>, {
      get: (_, name) => {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });

    readLocalSettings(recording, '/work');

    expect([...read].sort()).toEqual(Object.keys(LOCAL_SETTINGS).sort());
    const configuration = readFileSync(join(PROJECT_ROOT, 'docs/development.md'), 'utf8');
    for (const name of read) {
      expect(localUsage()).toMatch(new RegExp(`^ {2}${name} +\\S.+\\(default: .+\\)$`, 'm'));
      expect(configuration).toMatch(new RegExp(`^\\| \x60${name}\x60 \\| [^|]*\x60npm start\x60`, 'm'));
    }
  });

  it("defaults to port 3000, ./.data, the project's cache, any origin and no event target, and takes the rest as given", () => {
    expect(readLocalSettings({}, '/work')).toEqual({
      dataDir: '/work/.data',
      cacheDir: join(PROJECT_ROOT, 'node_modules', '.cache', 'petstore'),
      port: 3000,
      corsOrigins: ['*'],
      eventTargets: [],
    });
    expect(
      readLocalSettings(
        {
          PORT: ' 8080 ',
          PETSTORE_DATA_DIR: 'var',
          PETSTORE_CACHE_DIR: 'cache',
          PETSTORE_API_KEY: 'psk_x',
          PETSTORE_API_KEY_PLAN: 'trial',
          DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
          POWERTOOLS_LOG_LEVEL: 'debug',
          PETSTORE_CORS_ORIGINS: 'http://localhost:5173, https://app.example.com',
          PETSTORE_EVENT_TARGETS:
            'http://127.0.0.1:4000/events, https://hooks.example.com/pets,,http://127.0.0.1:4000/events',
        },
        '/work',
      ),
    ).toEqual({
      dataDir: '/work/var',
      cacheDir: '/work/cache',
      port: 8080,
      apiKey: 'psk_x',
      apiKeyPlan: 'trial',
      dynamoDbEndpoint: 'http://127.0.0.1:8000',
      logLevel: 'DEBUG',
      corsOrigins: ['http://localhost:5173', 'https://app.example.com'],
      eventTargets: ['http://127.0.0.1:4000/events', 'https://hooks.example.com/pets'],
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be a port number (0 to 65535), not "abc"'],
    [{ PORT: '70000' }, 'PORT must be a port number (0 to 65535), not "70000"'],
    [{ PORT: '-1' }, 'PORT must be a port number (0 to 65535), not "-1"'],
    [
      { POWERTOOLS_LOG_LEVEL: 'LOUD' },
      'POWERTOOLS_LOG_LEVEL must be one of DEBUG, INFO, WARN, ERROR, SILENT, not "LOUD"',
    ],
    [
      { PETSTORE_API_KEY_PLAN: 'gold' },
      'PETSTORE_API_KEY_PLAN must be one of the local plans (trial, standard, partner, smoke, local), not "gold"',
    ],
    [
      { PETSTORE_EVENT_TARGETS: 'http://127.0.0.1:4000/events,127.0.0.1:4001' },
      'PETSTORE_EVENT_TARGETS must be http(s) URLs, comma-separated, such as http://127.0.0.1:4000/events, not "127.0.0.1:4001"',
    ],
    [
      { PETSTORE_API_KEY: 'two words' },
      'PETSTORE_API_KEY must be a token of letters, digits and -._~+/ characters (a bearer token the authorizer accepts, like the psk_… keys npm start generates)',
    ],
    [
      { PETSTORE_API_KEY: 'psk_é' },
      'PETSTORE_API_KEY must be a token of letters, digits and -._~+/ characters (a bearer token the authorizer accepts, like the psk_… keys npm start generates)',
    ],
    [
      { DYNAMODB_ENDPOINT: '127.0.0.1:8000' },
      'DYNAMODB_ENDPOINT must be an http(s) URL such as http://127.0.0.1:8000, not "127.0.0.1:8000"',
    ],
    [
      { DYNAMODB_ENDPOINT: 'localhost:8000' },
      'DYNAMODB_ENDPOINT must be an http(s) URL such as http://127.0.0.1:8000, not "localhost:8000"',
    ],
  ])('refuses %o, naming the variable: %s', (env, message) => {
    expect(() => readLocalSettings(env)).toThrow(message);
  });

  it('refuses a data directory below a file, naming PETSTORE_DATA_DIR', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-settings-'));
    try {
      writeFileSync(join(dir, 'file'), '');
      const wanted = join(dir, 'file', 'data');

      expect(() => ensureDataDir(wanted)).toThrow(
        `PETSTORE_DATA_DIR=${wanted} cannot be used: ${join(dir, 'file')} is a file, not a directory. Set PETSTORE_DATA_DIR to a directory you can write to.`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates a missing data directory, level by level', () => {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-settings-'));
    try {
      ensureDataDir(join(dir, 'a', 'b', 'c'));

      expect(() => ensureDataDir(join(dir, 'a', 'b', 'c'))).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a port with anything after its digits, and an endpoint that is not a URL', () => {
    expect(() => readLocalSettings({ PORT: '80abc' })).toThrow(
      new LocalConfigError('PORT must be a port number (0 to 65535), not "80abc"'),
    );
    expect(() => readLocalSettings({ DYNAMODB_ENDPOINT: 'not a url' })).toThrow(
      new LocalConfigError(
        'DYNAMODB_ENDPOINT must be an http(s) URL such as http://127.0.0.1:8000, not "not a url"',
      ),
    );
  });
});
