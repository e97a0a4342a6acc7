import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCOPE_RESOURCES } from '#functions/operations';
import { PROJECT_ROOT } from '#infra/project-root';
import { LOCAL_PLANS } from '#infra/stage-plans';
import { generateApiKey, hashApiKey } from '#shared/auth/api-key';
import { authorize } from '#shared/auth/authorize';
import { type KeysIo, main, parseKeysArgs, repositoryFor, resolveTarget, runKeys } from '#tools/keys/keys';
import { lockDataDir } from '#tools/local/data-dir-lock';
import { apiKeysOf, createTestTables, type TestTables } from '../support/tables';

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/GET/pets';

/** Runs the keys command in-process, as `npm run keys -- <argv>` would, capturing its output. */
const keys = async (argv: string[], now = new Date('2025-01-02T03:04:05.000Z')) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: KeysIo = { out: (line) => out.push(line), err: (line) => err.push(line), now: () => now };
  const parsed = parseKeysArgs(argv);
  if (parsed.command === 'help') throw new Error('not a keys command');
  const command = { ...parsed, target: resolveTarget(parsed.target) };
  const stores = repositoryFor(command.target);
  try {
    return { code: await runKeys(command, stores, io), out, err, apiKeys: stores.apiKeys };
  } finally {
    stores.close();
  }
};

describe('keys command on DynamoDB Local', () => {
  let tables: TestTables;
  let target: string[];
  beforeAll(async () => {
    tables = await createTestTables('keys');
    target = ['--endpoint', tables.endpoint, '--table', tables.names.apiKeys];
  });

  it('prints a new key once and stores only its hash', async () => {
    const created = await keys(['create', 'ci-bot', ...target]);

    expect(created.code).toBe(0);
    expect(created.out).toHaveLength(1);
    const [key = ''] = created.out;
    expect(key).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    const sha256 = createHash('sha256').update(key).digest('hex');
    const stored = await created.apiKeys.findByHash(sha256);
    expect(stored).toEqual({
      keyHash: sha256,
      keyId: `key-${sha256.slice(0, 12)}`,
      name: 'ci-bot',
      createdAt: '2025-01-02T03:04:05.000Z',
      // The local server's plans are staging's: its default one.
      plan: 'standard',
      // Made without --scope: every scope, named in the record.
      scopes: ['read:pets', 'write:pets'],
    });
    expect(JSON.stringify(await created.apiKeys.list())).not.toContain(key);
  });

  it('creates a key the authorizer accepts for every method of the stage, until it is revoked, which takes effect at once locally', async () => {
    const [key = ''] = (await keys(['create', 'partner', ...target])).out;
    const { apiKeys } = await keys(['list', ...target]);
    const allowed = await authorize(apiKeys, `Bearer ${key}`, METHOD_ARN, LOCAL_PLANS, SCOPE_RESOURCES);
    expect(allowed.policyDocument.Statement).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Resource: [...SCOPE_RESOURCES['read:pets'], ...SCOPE_RESOURCES['write:pets']].map(
          (resource) => `arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/${resource}`,
        ),
      }),
    ]);

    const revoked = await keys(['revoke', allowed.context.keyId, ...target]);

    expect(revoked.code).toBe(0);
    // A local table (--endpoint): no API Gateway, and no cached decision, to speak of.
    expect(revoked.err).toEqual([
      `Revoked ${allowed.context.keyId}; the local server refuses it from its next request.`,
    ]);
    await expect(
      authorize(apiKeys, `Bearer ${key}`, METHOD_ARN, LOCAL_PLANS, SCOPE_RESOURCES),
    ).rejects.toThrow('Unauthorized');
  });

  it('lists id, name, plan, creation and revocation of every key, and never a hash', async () => {
    const [key = ''] = (await keys(['create', 'listed', '--plan', 'trial', ...target])).out;
    const keyId = `key-${hashApiKey(key).slice(0, 12)}`;
    await keys(['revoke', keyId, ...target], new Date('2025-02-03T04:05:06.000Z'));

    const listed = await keys(['list', ...target]);

    expect(listed.code).toBe(0);
    expect(listed.out[0]?.split(/\s+/)).toEqual([
      'KEY',
      'ID',
      'NAME',
      'PLAN',
      'SCOPES',
      'CREATED',
      'REVOKED',
      'USAGE',
      'ID',
    ]);
    expect(listed.out.find((line) => line.startsWith(keyId))?.split(/\s+/)).toEqual([
      keyId,
      'listed',
      'trial',
      'read:pets',
      'write:pets',
      '2025-01-02T03:04:05.000Z',
      '2025-02-03T04:05:06.000Z',
      // Locally there is no API Gateway: no usage identifier.
      '-',
    ]);
    const hashes = (await listed.apiKeys.list()).map((record) => record.keyHash);
    for (const hash of hashes) expect(listed.out.join('\n')).not.toContain(hash);
  });

  it('creates a key holding the scopes asked for, which the authorizer allows only their methods, and prints it as JSON with --json', async () => {
    const created = await keys(['create', 'reader', '--scope', 'read:pets', '--json', ...target]);

    expect(created.code).toBe(0);
    expect(created.out).toHaveLength(1);
    const printed = JSON.parse(created.out[0] ?? '') as { keyId: string; key: string };
    expect(printed).toEqual({
      keyId: `key-${hashApiKey(printed.key).slice(0, 12)}`,
      key: expect.stringMatching(/^psk_[A-Za-z0-9_-]{43}$/),
      scopes: ['read:pets'],
      plan: 'standard',
    });
    expect(created.err[0]).toBe(
      `Created ${printed.keyId} ("reader") on plan standard, with read:pets, in ${tables.names.apiKeys}.`,
    );
    const allowed = await authorize(
      created.apiKeys,
      `Bearer ${printed.key}`,
      METHOD_ARN,
      LOCAL_PLANS,
      SCOPE_RESOURCES,
    );
    expect(allowed.policyDocument.Statement).toEqual([
      expect.objectContaining({
        Resource: SCOPE_RESOURCES['read:pets'].map(
          (resource) => `arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/${resource}`,
        ),
      }),
    ]);
    expect(allowed.context.scopes).toBe('read:pets');
  });

  it("lists every record with its scopes as JSON with --json (a record made before scopes with every scope), never a key, a hash or a usage identifier's value", async () => {
    const [key = ''] = (await keys(['create', 'writer', '--scope', 'write:pets', ...target])).out;
    const keyId = `key-${hashApiKey(key).slice(0, 12)}`;
    const before = generateApiKey('made before scopes', new Date('2024-01-01T00:00:00.000Z'));
    await apiKeysOf(tables).put({ ...before.record, usage: { id: 'u1', value: 'usage-value-0123456789' } });

    const listed = await keys(['list', '--json', ...target]);

    expect(listed.code).toBe(0);
    expect(listed.out).toHaveLength(1);
    const records = JSON.parse(listed.out[0] ?? '') as { keyId: string }[];
    expect(records.find((record) => record.keyId === keyId)).toEqual({
      keyId,
      name: 'writer',
      plan: 'standard',
      scopes: ['write:pets'],
      createdAt: '2025-01-02T03:04:05.000Z',
    });
    expect(records.find((record) => record.keyId === before.record.keyId)).toEqual({
      keyId: before.record.keyId,
      name: 'made before scopes',
      plan: 'standard',
      scopes: ['read:pets', 'write:pets'],
      createdAt: '2024-01-01T00:00:00.000Z',
      usageId: 'u1',
    });
    for (const secret of [key, before.key, hashApiKey(key), 'usage-value-0123456789'])
      expect(listed.out[0]).not.toContain(secret);
    const table = await keys(['list', ...target]);
    expect(table.out.find((line) => line.startsWith(before.record.keyId))).toContain(
      'read:pets write:pets(all)',
    );
  });

  it('refuses a scope the service does not have in one sentence naming the scopes it has, exit code 2, and makes no key', async () => {
    const lines: string[] = [];
    const before = (await apiKeysOf(tables).list()).length;

    const code = await main(['create', 'admin', '--scope', 'read:pets', '--scope', 'admin:pets', ...target], {
      out: (line) => lines.push(line),
      err: (line) => lines.push(line),
    });

    expect(code).toBe(2);
    expect(lines).toEqual(['"admin:pets" is not a scope: the scopes are read:pets, write:pets.']);
    expect(await apiKeysOf(tables).list()).toHaveLength(before);
  });

  it("finds npm start's DynamoDB Local and keys table from the lock of PETSTORE_DATA_DIR with --local, and says in one sentence when no server runs there or its DynamoDB Local no longer answers", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'petstore-keys-local-'));
    const run = async (argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(argv, {
        out: (line) => out.push(line),
        err: (line) => err.push(line),
        env: { PETSTORE_DATA_DIR: dataDir },
      });
      return { code, out, err };
    };
    try {
      const nobody = await run(['list', '--local']);
      expect([nobody.code, nobody.out, nobody.err]).toEqual([
        2,
        [],
        [`No npm start runs on ${dataDir} (PETSTORE_DATA_DIR): start it, or give --endpoint and --table.`],
      ]);

      // This process holds the directory as npm start does, its DynamoDB Local the run's.
      const lock = await lockDataDir({ dataDir, port: 3000, apiKey: 'psk_local', corsOrigins: [] });
      try {
        const starting = await run(['list', '--local']);
        expect([starting.code, starting.err]).toEqual([
          2,
          [
            `The npm start on ${dataDir} (PID ${process.pid}) has not said where its DynamoDB Local is: wait until it serves, or restart it.`,
          ],
        ]);
        lock.update({ dynamoDb: { endpoint: tables.endpoint, apiKeysTable: tables.names.apiKeys } });

        const created = await run(['create', 'local-reader', '--scope', 'read:pets', '--local', '--json']);

        expect(created.code).toBe(0);
        const { keyId } = JSON.parse(created.out[0] ?? '') as { keyId: string };
        expect((await apiKeysOf(tables).findById(keyId))?.scopes).toEqual(['read:pets']);
        expect((await run(['revoke', 'key-000000000000', '--local'])).err).toEqual([
          `No key key-000000000000 in ${tables.names.apiKeys}.`,
        ]);

        // The server died, its DynamoDB Local with it, and its lock stayed behind: nothing answers there.
        const gone = createServer();
        await new Promise<void>((listening) => gone.listen(0, '127.0.0.1', listening));
        const { port } = gone.address() as AddressInfo;
        await new Promise((closed) => gone.close(closed));
        const endpoint = `http://127.0.0.1:${port}`;
        lock.update({ dynamoDb: { endpoint, apiKeysTable: tables.names.apiKeys } });

        const dead = await run(['list', '--local']);
        expect([dead.code, dead.out, dead.err]).toEqual([
          2,
          [],
          [
            `npm start's DynamoDB Local at ${endpoint} does not answer (ECONNREFUSED): start npm start again, then run the same command.`,
          ],
        ]);
      } finally {
        lock.release();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('creates a key on the plan asked for, and moves it to another, which the authorizer then names', async () => {
    const [key = ''] = (await keys(['create', 'paced', '--plan', 'trial', ...target])).out;
    const keyId = `key-${hashApiKey(key).slice(0, 12)}`;
    const { apiKeys } = await keys(['list', ...target]);
    expect(
      (await authorize(apiKeys, `Bearer ${key}`, METHOD_ARN, LOCAL_PLANS, SCOPE_RESOURCES)).context,
    ).toMatchObject({
      plan: 'trial',
      rateLimitPolicy: '"trial";q=100;w=86400, "trial-rate";q=2;w=2',
    });

    const moved = await keys(['move', keyId, '--plan', 'partner', ...target]);

    expect(moved.code).toBe(0);
    expect(moved.err.join('\n')).toContain(`${keyId} is on plan partner`);
    expect(
      (await authorize(apiKeys, `Bearer ${key}`, METHOD_ARN, LOCAL_PLANS, SCOPE_RESOURCES)).context.plan,
    ).toBe('partner');
  });

  it('refuses a plan the stage does not have with exit code 2, naming the plans it has', async () => {
    const lines: string[] = [];

    const code = await main(['create', 'golden', '--plan', 'gold', ...target], {
      out: (line) => lines.push(line),
      err: (line) => lines.push(line),
    });

    expect(code).toBe(2);
    expect(lines).toEqual([
      'Plan "gold" is not one of this stage\'s: trial, standard, partner, smoke, local',
    ]);
  });

  it('fails with exit code 1 when revoking a key that does not exist', async () => {
    const revoked = await keys(['revoke', 'key-000000000000', ...target]);

    expect(revoked.code).toBe(1);
    expect(revoked.err.join('\n')).toContain('No key key-000000000000');
  });

  it('runs as `npm run keys` does, from the command line', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(PROJECT_ROOT, 'tools/keys/keys.ts'), 'create', 'from-cli', ...target],
      { cwd: PROJECT_ROOT },
    );

    expect(stdout.trim()).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    // A process of its own loading tsx and the SDK: about a second idle, several under load.
  }, 60_000);
});

describe('keys command against AWS, on a machine without AWS set up', () => {
  /** No region and no credentials anywhere the SDK looks (and no instance metadata to ask). */
  const noAwsSetup = {
    AWS_REGION: '',
    AWS_DEFAULT_REGION: '',
    AWS_PROFILE: '',
    AWS_CONFIG_FILE: '/nonexistent/aws/config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws/credentials',
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_SESSION_TOKEN: '',
    AWS_WEB_IDENTITY_TOKEN_FILE: '',
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '',
    AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const run = async (argv: string[]) => {
    for (const [name, value] of Object.entries(noAwsSetup)) vi.stubEnv(name, value);
    const lines: string[] = [];
    const started = performance.now();
    const code = await main(argv, { out: (line) => lines.push(line), err: (line) => lines.push(line) });
    return { code, lines, ms: performance.now() - started };
  };

  it('says to sign in and set AWS_PROFILE and AWS_REGION when there are neither credentials nor a region', async () => {
    const result = await run(['list', '--table', 'PetStore-staging-TablesApiKeys1234']);

    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      'No AWS credentials and no region: sign in (aws sso login --profile <name>) and set AWS_PROFILE to that profile, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; and set AWS_REGION (or give the profile a region).',
    ]);
    expect(result.ms).toBeLessThan(2_000);
  });

  it('says to set AWS_PROFILE or access keys when there are no credentials', async () => {
    const result = await run([
      'list',
      '--table',
      'PetStore-staging-TablesApiKeys1234',
      '--region',
      'eu-west-1',
    ]);

    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      'No usable AWS credentials: sign in (aws sso login --profile <name>) and set AWS_PROFILE to that profile, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    ]);
    expect(result.ms).toBeLessThan(2_000);
  });
});
