import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { LOCAL_KEY_PLAN, LOCAL_PLANS } from '#infra/stage-plans';
import { type DataDirLock, lockDataDir } from '#tools/local/data-dir-lock';
import { type LocalApi, startLocalApi } from '../support/local-api';

/** The README's "Try it" commands, run as a reader would run them, against a fresh local server. */

let api: LocalApi;
/** The data directory whose lock `npm run keys -- … --local` reads: this process holds it, as npm start would. */
let dataDir: string;
let lock: DataDirLock;
beforeAll(async () => {
  // As npm start runs: its plans, its own key on the local plan, and a key made by npm run keys on the default.
  api = await startLocalApi('readme', { plans: LOCAL_PLANS, keyPlan: LOCAL_KEY_PLAN });
  dataDir = mkdtempSync(join(tmpdir(), 'petstore-readme-'));
  lock = await lockDataDir({ dataDir, port: api.gateway.port, apiKey: api.apiKey, corsOrigins: [] });
  lock.update({ dynamoDb: { endpoint: api.tables.endpoint, apiKeysTable: api.tables.names.apiKeys } });
});
afterAll(async () => {
  lock?.release();
  rmSync(dataDir, { recursive: true, force: true });
  await api.close();
});

/** The first shell block after `heading` in README.md. */
const shellBlock = (heading: string): string => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`No sh block after ${heading}`);
  return block;
};

describe('the README', () => {
  it('"Try it" runs as written: a create, a safe retry, pages, the deprecated read, a change, a read-only key, a removal and an error', async () => {
    // The reader's KEY and API lines, pointed at this test's server.
    const script = shellBlock('## Try it')
      .replace(/^KEY=.*$/m, `KEY='${api.apiKey}'`)
      .replace(/^API=.*$/m, `API='${api.gateway.baseUrl}'`);

    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
        env: { ...process.env, PETSTORE_DATA_DIR: dataDir },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

    expect(run.stderr).not.toMatch(/curl: \(\d+\)/);
    expect(run.status).toBe(0);
    const output = run.stdout;
    expect(output).toMatch(/HTTP\/1\.1 201/);
    expect(output).toMatch(/^location: \/v1\/pets\/1\r?$/im);
    expect(output).toContain('{"id":1,"name":"Rex","categoryId":3,"status":"available"}');
    expect(output).toMatch(/^idempotent-replayed: true\r?$/im);
    expect(output).toMatch(/^link: <\/v1\/pets\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"\r?$/im);
    expect(output).toMatch(/^deprecation: @1795219200\r?$/im);
    expect(output).toMatch(/^etag: "1"\r?$/im);
    expect(output).toMatch(/^etag: "2"\r?$/im);
    expect(output).toContain('{"id":1,"name":"Rex","categoryId":3,"status":"sold"}');
    // The read-only key's read, then its removal refused: the pet is still there for the key that may.
    expect(output).toContain(
      '{"id":1,"name":"Rex","categoryId":3,"status":"sold"}{"code":"FORBIDDEN","message":"The API key lacks the scope this operation needs',
    );
    expect(output).toMatch(/HTTP\/1\.1 204/);
    expect(output).toContain(
      '"code":"VALIDATION_FAILED","message":"Invalid request: query.limit must be at least 1"',
    );
  });
});

describe('the README, docs/development.md and package.json', () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const development = readFileSync(join(PROJECT_ROOT, 'docs/development.md'), 'utf8');
  const scripts = Object.keys(
    (
      JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts,
  );

  it('names only scripts that exist', () => {
    const named = [...`${readme}\n${development}`.matchAll(/npm run (?:-s )?(\w[\w-]*(?::[\w-]+)*)/g)].map(
      ([, name]) => name,
    );

    expect(named.length).toBeGreaterThan(5);
    for (const name of named) expect(scripts, `npm run ${name}`).toContain(name);
  });

  it('lists every script in the Scripts table of docs/development.md', () => {
    const from = development.indexOf('\n## Scripts\n');
    expect(from).toBeGreaterThan(-1);
    const table = development.slice(from, development.indexOf('\n## ', from + 1));
    const listed = new Set(
      [...table.matchAll(/`(?:npm run |npm )?(\w[\w-]*(?::[\w-]+)*)/g)].map(([, name]) => name as string),
    );

    // check:types, check:lint and check:openapi are the parts of `npm run check`, listed with it.
    for (const name of scripts.filter((script) => !script.startsWith('check:'))) {
      expect(listed, name).toContain(name);
    }
  });
});
