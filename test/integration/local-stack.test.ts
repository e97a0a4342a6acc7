import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoDbApiKeyRepository } from '#shared/adapters/dynamodb/dynamodb-api-key-repository';
import { recordFor } from '#shared/auth/api-key';
import { startLocalStack } from '#tools/local/local-stack';
import { LOCAL_TABLE_PREFIX, LocalConfigError } from '#tools/local/settings';

/**
 * What `npm start` runs, on the run's DynamoDB Local (as with DYNAMODB_ENDPOINT, so no Java
 * process of its own): the tables, the local key and where it comes from, the gateway in front of
 * the real functions. Each stack listens on a free port.
 */

const endpoint = inject('dynamoDbEndpoint');
const dataDirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-stack-'));
  dataDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('the local stack', () => {
  it('names its tables petstore-local-…', () => {
    expect(LOCAL_TABLE_PREFIX).toBe('petstore-local');
  });

  it('generates a key once, keeps it readable by its owner only, and accepts it', async () => {
    const dir = dataDir();

    const first = await startLocalStack({ dataDir: dir, port: 0, dynamoDbEndpoint: endpoint });
    await first.stop();
    const second = await startLocalStack({ dataDir: dir, port: 0, dynamoDbEndpoint: endpoint });
    try {
      const response = await fetch(`${second.gateway.baseUrl}/pets?limit=1`, {
        headers: { Authorization: `Bearer ${second.apiKey}` },
      });

      expect(first.apiKeySource).toBe('generated');
      expect(first.apiKey).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
      expect(readFileSync(join(dir, 'api-key'), 'utf8')).toBe(`${first.apiKey}\n`);
      expect(statSync(join(dir, 'api-key')).mode & 0o777).toBe(0o600);
      expect([second.apiKeySource, second.apiKey]).toEqual(['data dir', first.apiKey]);
      expect(response.status).toBe(200);
      expect(second.dynamoDbEndpoint).toBe(endpoint);
      expect(second.dynamoDbLocal).toBeUndefined();
    } finally {
      await second.stop();
    }
  });

  it('reads a key kept in the data directory without the blanks around it', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'api-key'), '  psk_kept-by-hand  \n');

    const stack = await startLocalStack({ dataDir: dir, port: 0, dynamoDbEndpoint: endpoint });
    await stack.stop();

    expect([stack.apiKeySource, stack.apiKey]).toEqual(['data dir', 'psk_kept-by-hand']);
  });

  it('accepts the key PETSTORE_API_KEY gives, and no other, with the CORS origins it is given', async () => {
    const stack = await startLocalStack({
      dataDir: dataDir(),
      port: 0,
      dynamoDbEndpoint: endpoint,
      apiKey: 'psk_chosen-key',
      corsOrigins: ['http://localhost:5173'],
    });
    try {
      const accepted = await fetch(`${stack.gateway.baseUrl}/pets`, {
        headers: { Authorization: 'Bearer psk_chosen-key', Origin: 'http://localhost:5173' },
      });
      const refused = await fetch(`${stack.gateway.baseUrl}/pets`, {
        headers: { Authorization: 'Bearer psk_other-key' },
      });

      expect(stack.apiKeySource).toBe('PETSTORE_API_KEY');
      expect(accepted.status).toBe(200);
      expect(accepted.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(refused.status).toBe(401);
    } finally {
      await stack.stop();
    }
  });

  it('serves the static routes it is given beside the API, and logs each request', async () => {
    const lines: string[] = [];
    const stack = await startLocalStack({
      dataDir: dataDir(),
      port: 0,
      dynamoDbEndpoint: endpoint,
      staticRoutes: { '/docs': { contentType: 'text/html', body: '<h1>Reference</h1>' } },
      log: (line) => lines.push(line),
    });
    try {
      const page = await fetch(new URL('/docs', stack.gateway.baseUrl));

      expect(await page.text()).toBe('<h1>Reference</h1>');
      await expect.poll(() => lines.at(-1)).toMatch(/^GET \/docs 200 /);
    } finally {
      await stack.stop();
    }
  });

  it('runs the functions quietly: WARN logs, no metrics, no CORS header unless origins are given', async () => {
    const stack = await startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: endpoint });
    const written: string[] = [];
    try {
      const headers = { Authorization: `Bearer ${stack.apiKey}`, 'Content-Type': 'application/json' };
      for (const stream of [process.stdout, process.stderr]) {
        vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
          written.push(String(chunk));
          return true;
        });
      }
      const created = await fetch(`${stack.gateway.baseUrl}/pets`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Quiet', categoryId: 1 }),
      });
      const missing = await fetch(`${stack.gateway.baseUrl}/pets/987654321`, { headers });
      vi.restoreAllMocks();

      expect([created.status, missing.status]).toEqual([201, 404]);
      expect(created.headers.get('vary')).toBeNull();
      // No 'Request rejected' (INFO) for the 404, no EMF line for the created pet.
      expect(written).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      await stack.stop();
    }
    await expect(fetch(`${stack.gateway.baseUrl}/pets`)).rejects.toThrow();
  });

  it('stores the local key under the name "local"', async () => {
    const stack = await startLocalStack({
      dataDir: dataDir(),
      port: 0,
      dynamoDbEndpoint: endpoint,
      apiKey: 'psk_named',
    });
    await stack.stop();
    const keys = new DynamoDbApiKeyRepository({
      client: createDocumentClient({ endpoint }),
      apiKeysTable: 'petstore-local-apikeys',
    });

    expect(await keys.findByHash(recordFor('psk_named', 'x').keyHash)).toMatchObject({
      name: 'local',
      plan: 'local',
    });
  });

  it('puts the local key on the local plan, or on the one asked for, and enforces it', async () => {
    const onDefault = await startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: endpoint });
    await onDefault.stop();
    const onTrial = await startLocalStack({
      dataDir: dataDir(),
      port: 0,
      dynamoDbEndpoint: endpoint,
      apiKey: 'psk_on-trial',
      apiKeyPlan: 'trial',
    });
    try {
      // trial: a burst of 2, then 1 a second. Six at once: all six would pass only if the
      // authorizer took seconds longer for some than for others.
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map(() =>
          fetch(`${onTrial.gateway.baseUrl}/pets?limit=1`, {
            headers: { Authorization: 'Bearer psk_on-trial' },
          }),
        ),
      );

      expect(onDefault.apiKeyPlan).toBe('local');
      expect(onTrial.apiKeyPlan).toBe('trial');
      expect(answers.map((answer) => answer.status)).toContain(429);
      // The six arrive in no set order, so the first answer in the list may be a 429, which
      // API Gateway answers without the authorizer's context: the plan is read off a served one.
      const served = answers.find((answer) => answer.status === 200);
      expect(served?.headers.get('ratelimit-policy')).toBe('"trial";q=100;w=86400, "trial-rate";q=2;w=2');
    } finally {
      await onTrial.stop();
    }
  });

  it('refuses a local key plan the local server does not have, in one sentence naming the variable', async () => {
    await expect(
      startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: endpoint, apiKeyPlan: 'gold' }),
    ).rejects.toThrow(
      new LocalConfigError(
        'PETSTORE_API_KEY_PLAN must be one of the local plans (trial, standard, partner, smoke, local), not "gold"',
      ),
    );
  });

  it('keeps a revoked key revoked, with its creation date and plan, when the server starts again, asked for another plan too', async () => {
    const apiKey = `psk_revoked-${Date.now()}`;
    const keys = new DynamoDbApiKeyRepository({
      client: createDocumentClient({ endpoint }),
      apiKeysTable: 'petstore-local-apikeys',
    });
    const first = await startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: endpoint, apiKey });
    await first.stop();
    const seeded = await keys.findByHash(recordFor(apiKey, 'x').keyHash);
    await keys.revoke(seeded?.keyId ?? '', '2026-01-02T03:04:05.000Z');

    // A stored record is kept as it is, its plan included: that changes only with npm run keys.
    const second = await startLocalStack({
      dataDir: dataDir(),
      port: 0,
      dynamoDbEndpoint: endpoint,
      apiKey,
      apiKeyPlan: 'trial',
    });
    try {
      const response = await fetch(`${second.gateway.baseUrl}/pets`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });

      expect(first.apiKeyRevokedAt).toBeUndefined();
      expect(second.apiKeyRevokedAt).toBe('2026-01-02T03:04:05.000Z');
      expect(second.apiKeyPlan).toBe('local');
      expect(response.status).toBe(401);
      expect(await keys.findByHash(recordFor(apiKey, 'x').keyHash)).toEqual({
        ...seeded,
        plan: 'local',
        revokedAt: '2026-01-02T03:04:05.000Z',
      });
    } finally {
      await second.stop();
    }
  });

  it('refuses a DynamoDB endpoint that does not answer, naming DYNAMODB_ENDPOINT', async () => {
    await expect(
      startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: 'http://127.0.0.1:9' }),
    ).rejects.toThrow(
      new LocalConfigError(
        'No DynamoDB answers at DYNAMODB_ENDPOINT=http://127.0.0.1:9 (ECONNREFUSED): start it, fix DYNAMODB_ENDPOINT, or unset it to use the embedded DynamoDB Local.',
      ),
    );
  });

  it('refuses a PETSTORE_API_KEY the authorizer would not take as it is, naming the variable', async () => {
    for (const apiKey of ['two words', ' psk_with-blanks ', 'psk_é']) {
      await expect(
        startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: endpoint, apiKey }),
      ).rejects.toThrow(
        new LocalConfigError(
          'PETSTORE_API_KEY must be a token of letters, digits and -._~+/ characters (a bearer token the authorizer accepts, like the psk_… keys npm start generates)',
        ),
      );
    }
  });

  it('refuses a key kept in the data directory that the authorizer would not take, naming the file', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'api-key'), 'two words\n');

    await expect(startLocalStack({ dataDir: dir, port: 0, dynamoDbEndpoint: endpoint })).rejects.toThrow(
      new LocalConfigError(
        `The key in ${join(dir, 'api-key')} must be a token of letters, digits and -._~+/ characters (a bearer token the authorizer accepts, like the psk_… keys npm start generates): fix it, or delete the file for a new one`,
      ),
    );
  });

  it("leaves the key record of a server it shares DynamoDB with as it was: a second server cannot change the first's plan", async () => {
    const apiKey = `psk_shared-${Date.now()}`;
    const first = await startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: endpoint, apiKey });
    const keys = new DynamoDbApiKeyRepository({
      client: createDocumentClient({ endpoint }),
      apiKeysTable: 'petstore-local-apikeys',
    });
    const before = await keys.findByHash(recordFor(apiKey, 'x').keyHash);
    try {
      // Its own data directory, the same DynamoDB and key, another plan asked for: as the red team ran it.
      const second = await startLocalStack({
        dataDir: dataDir(),
        port: 0,
        dynamoDbEndpoint: endpoint,
        apiKey,
        apiKeyPlan: 'trial',
      });
      await second.stop();
      // Six at once on the first server: a trial plan would answer 429 past a burst of 2.
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map(() =>
          fetch(`${first.gateway.baseUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${apiKey}` } }),
        ),
      );

      expect(second.apiKeyPlan).toBe('local');
      expect(await keys.findByHash(recordFor(apiKey, 'x').keyHash)).toEqual(before);
      expect(before?.plan).toBe('local');
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      await first.stop();
    }
  });

  it('refuses a port another server holds, naming PORT, before it touches DynamoDB', async () => {
    const holder = await startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: endpoint });
    try {
      await expect(
        startLocalStack({
          dataDir: dataDir(),
          port: holder.gateway.port,
          dynamoDbEndpoint: 'http://127.0.0.1:9',
        }),
      ).rejects.toThrow(/^Port \d+ on 127\.0\.0\.1 is in use: .* set PORT to a free port/);
    } finally {
      await holder.stop();
    }
  });
});
