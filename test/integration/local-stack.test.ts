import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_TABLE_PREFIX, startLocalStack } from '#tools/local/local-stack';
import { LocalConfigError } from '#tools/local/settings';

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

  it('refuses a PETSTORE_API_KEY that cannot be sent as a bearer token, naming the variable', async () => {
    await expect(
      startLocalStack({ dataDir: dataDir(), port: 0, dynamoDbEndpoint: endpoint, apiKey: 'two words' }),
    ).rejects.toThrow(
      new LocalConfigError('PETSTORE_API_KEY must be a token of letters, digits and -._~+/ characters'),
    );
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
