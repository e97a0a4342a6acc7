import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { freePort } from '#tools/local/dynamodb-local';
import { CONTRACT_SUITE, READ_ONLY_SUITE } from '../contract/suite';
import { contractTarget, smokeName } from '../contract/target';
import { type LocalApi, startLocalApi } from '../support/local-api';

type Pet = { id: number };

/**
 * `npm run smoke` as an operator runs it after a deploy: pointed at a server that breaks the
 * contract it must fail, and say what broke. (Against a good server it runs the contract suite,
 * which contract.test.ts runs here on every test run.)
 */

let api: LocalApi;
let broken: Server;
let brokenUrl: string;

/**
 * The local API behind a proxy that gets one thing wrong: the deprecated getPet's `Deprecation`
 * header names another date.
 */
const startBrokenProxy = async (upstream: string): Promise<Server> => {
  const target = new URL(upstream);
  const server = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        const headers = { ...answer.headers };
        if (headers.deprecation) headers.deprecation = '@1700000000';
        outgoing.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return server;
};

const smoke = (args: readonly string[]) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/smoke/smoke.ts', ...args], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => resolve({ code, output }));
  });

beforeAll(async () => {
  api = await startLocalApi('smoke');
  broken = await startBrokenProxy(api.gateway.baseUrl);
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((closed) => broken.close(() => closed()));
  await api.close();
});

describe('the read-only suite', () => {
  it('holds every check of the contract suite that creates nothing, and only those', () => {
    const all = CONTRACT_SUITE.flatMap((area) => area.checks);
    const readOnly = READ_ONLY_SUITE.flatMap((area) => area.checks);

    expect(readOnly).toEqual(all.filter((candidate) => !candidate.creates));
    expect(readOnly.length).toBeGreaterThan(all.length / 2);
    expect(READ_ONLY_SUITE.map((area) => area.area)).toEqual(CONTRACT_SUITE.map((area) => area.area));
  });
});

describe('npm run smoke', () => {
  it('fails against a server that breaks the contract, naming each check that broke and why', async () => {
    const { code, output } = await smoke(['--url', brokenUrl, '--key', api.apiKey]);

    expect(code).toBe(1);
    expect(output).toContain(`Contract suite against ${brokenUrl}`);
    expect(output).toMatch(
      /FAIL GET \/pets\/\{petId\} returns the pet with the Deprecation, Sunset and Link headers/,
    );
    expect(output).toContain('@1700000000');
    // Only getPet answers carry the header: its checks fail, every other check passes.
    const failed = output.split('\n').filter((line) => line.startsWith('  - '));
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const line of failed) expect(line).toMatch(/\/pets\/(\{petId\}|\S+)/);
    expect(output).toMatch(new RegExp(`\n${failed.length} of \\d+ checks failed:\n`));
    expect(output).toMatch(/ok {3}POST \/pets creates a pet and answers 201 with it and its Location/);
  });

  it('creates nothing with --read-only, and says which checks it skipped', async () => {
    const client = contractTarget({ baseUrl: api.gateway.baseUrl, apiKey: api.apiKey }).api;
    const before = (await client.post('/pets', { name: smokeName('before'), categoryId: 1 })).json as Pet;

    const { code, output } = await smoke(['--url', api.gateway.baseUrl, '--key', api.apiKey, '--read-only']);

    const after = (await client.post('/pets', { name: smokeName('after'), categoryId: 1 })).json as Pet;
    expect(code).toBe(0);
    expect(after.id).toBe(before.id + 1);
    expect(output).toContain('read-only: the checks that create pets are skipped');
    const ran = READ_ONLY_SUITE.flatMap((area) => area.checks).length;
    expect(output).toContain(`All ${ran} checks passed.`);
    expect(output).toMatch(/ok {3}GET \/pets\/\{petId\} answers 404 NOT_FOUND, still deprecated/);
    expect(output).not.toContain('POST /pets creates a pet');
  });

  it('fails a read-only check the moment the API answers that it created a pet', async () => {
    const readOnly = contractTarget({ baseUrl: api.gateway.baseUrl, apiKey: api.apiKey, readOnly: true });

    await expect(readOnly.api.post('/pets', { name: smokeName('stray'), categoryId: 1 })).rejects.toThrow(
      'POST /pets created a pet in a read-only run: declare the check with creating(…)',
    );
    expect((await readOnly.api.post('/pets', { name: '', categoryId: 1 })).status).toBe(400);
  });

  it.each([
    ['unknown', 'psk_wrong'],
    ['not a bearer token', 'not a key!'],
  ])('stops at once, in one line, when the API refuses the key (%s)', async (_, key) => {
    const { code, output } = await smoke(['--url', api.gateway.baseUrl, '--key', key]);

    expect(code).toBe(2);
    expect(output.trim()).toBe(
      `Cannot run the smoke suite: The API at ${api.gateway.baseUrl} refused the key (401 UNAUTHORIZED): give the key npm start printed, or one made for that stage with npm run keys -- create`,
    );
  });

  it('stops at once, saying so, when no API answers at the URL', async () => {
    const url = `http://127.0.0.1:${await freePort()}/v1`;

    const { code, output } = await smoke(['--url', url, '--key', 'psk_any']);

    expect(code).toBe(2);
    expect(output.trim()).toBe(
      `Cannot run the smoke suite: No API answers at ${url} (ECONNREFUSED): start it with npm start, or give --url and --key of a stage`,
    );
  });
});
