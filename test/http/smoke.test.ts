import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { LOCAL_PLANS } from '#infra/stage-plans';
import { assertKeyAccepted } from '#tools/api-target';
import {
  NO_ORIGIN_REASON,
  NO_THROTTLE_KEY_REASON,
  READ_ONLY_REASON,
  reasonNotToRun,
  runCheck,
} from '#tools/contract/check';
import { OPERATIONS_AREA } from '#tools/contract/operations';
import { CONTRACT_SUITE } from '#tools/contract/suite';
import { contractTarget, smokeName } from '#tools/contract/target';
import { lockDataDir } from '#tools/local/data-dir-lock';
import { freePort } from '#tools/local/dynamodb-local';
import { type Admission, type Caller, FairUse } from '#tools/local/fair-use';
import { formatReport, runSuite } from '#tools/smoke/run-suite';
import { main as runSmoke } from '#tools/smoke/smoke';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { TEST_PLANS } from '../support/plans';
import { VirtualClock } from '../support/virtual-clock';

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

/** `npm run smoke` with `args` as a process, run from `root` (a copy of the project). */
const smokeProcess = (args: readonly string[], root: string) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/smoke/smoke.ts', ...args], {
      cwd: root,
      // Vitest sets BASE_URL (Vite's base path) in its own environment: not the smoke command's.
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'BASE_URL')),
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

/**
 * `npm run smoke` with `args`, in this process: what the command's file runs, with the shell's
 * environment and `shell`'s settings, without the process (the case whose subject is the process,
 * a copy of the tree without its tests, spawns it).
 */
const smoke = async (args: readonly string[], shell: Record<string, string> = {}) => {
  let output = '';
  const line = (text: string) => {
    output += `${text}\n`;
  };
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'BASE_URL'));
  const code = await runSmoke([...args], { ...env, ...shell }, { out: line, err: line });
  return { code, output };
};

/** The lines of a section of the report (`Failed (2):`, `Skipped (…)…`), up to the blank line after it. */
const sectionOf = (output: string, heading: RegExp): string[] => {
  const lines = output.split('\n');
  const start = lines.findIndex((line) => heading.test(line));
  if (start === -1) return [];
  const end = lines.findIndex((line, index) => index > start && line === '');
  return lines.slice(start + 1, end === -1 ? undefined : end);
};

const ROOMY = TEST_PLANS.plans.roomy as NonNullable<(typeof TEST_PLANS.plans)['roomy']>;

const ALL_CHECKS = CONTRACT_SUITE.flatMap((area) => area.checks);
const CREATING = ALL_CHECKS.filter((candidate) => candidate.creates);
/** The checks of what an allowed origin gets: skipped when the run is given no origin. */
const NEEDS_AN_ORIGIN = ALL_CHECKS.filter((candidate) => candidate.needs === 'allowedOrigin').length;
/** The check that sends faster than a plan allows: skipped when the run is given no key to spend. */
const NEEDS_A_THROTTLE_KEY = ALL_CHECKS.filter((candidate) => candidate.needs === 'throttled').length;
/** What a run given neither an origin nor a throttle key skips. */
const NOT_GIVEN = NEEDS_AN_ORIGIN + NEEDS_A_THROTTLE_KEY;

beforeAll(async () => {
  api = await startLocalApi('smoke');
  broken = await startBrokenProxy(api.gateway.baseUrl);
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((closed) => broken.close(() => closed()));
  await api.close();
});

describe('a read-only run', () => {
  // Given all a check may need but the right to create pets.
  const given = {
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: 'psk_any',
    allowedOrigin: 'http://a.example',
    throttleKey: 'psk_other',
  };
  const readOnly = contractTarget({ ...given, readOnly: true });
  const full = contractTarget(given);

  it('skips every check of the contract suite that creates pets, and only those, saying why', () => {
    const skipped = ALL_CHECKS.filter((candidate) => reasonNotToRun(candidate, readOnly) !== undefined);

    expect(skipped).toEqual(CREATING);
    expect(skipped.map((candidate) => reasonNotToRun(candidate, readOnly))).toEqual(
      CREATING.map(() => READ_ONLY_REASON),
    );
    expect(ALL_CHECKS.filter((candidate) => reasonNotToRun(candidate, full) !== undefined)).toEqual([]);
    expect(ALL_CHECKS.length - CREATING.length).toBeGreaterThan(ALL_CHECKS.length / 2);
    // Every area keeps a check that a read-only run runs.
    expect(
      CONTRACT_SUITE.filter(({ checks }) => checks.every((candidate) => candidate.creates)).map(
        ({ area }) => area,
      ),
    ).toEqual([]);
  });

  it('reports a check that creates pets as skipped without running it', async () => {
    const [creates] = OPERATIONS_AREA.checks.filter((candidate) => candidate.creates);
    if (!creates) throw new Error('The operations area has no check that creates a pet');
    const target = contractTarget({ baseUrl: api.gateway.baseUrl, apiKey: api.apiKey, readOnly: true });

    // Run, it would create a pet, which a read-only target refuses as a failure.
    await expect(runCheck(creates, target)).resolves.toEqual({ status: 'skipped', reason: READ_ONLY_REASON });
  });
});

describe('npm run smoke', () => {
  it('fails against a server that breaks the contract, naming each check that broke and why', async () => {
    const { code, output } = await smoke(['--url', brokenUrl, '--key', api.apiKey]);

    expect(code).toBe(1);
    expect(output).toContain(`Contract suite against ${brokenUrl}`);
    expect(output).toMatch(
      /FAIL GET \/pets\/\{petId\} answers with Deprecation, Sunset, Link, whether it finds the pet or not/,
    );
    expect(output).toContain('@1700000000');
    // Only getPet answers carry the header: its checks fail, every other check passes.
    const failed = sectionOf(output, /^Failed \(\d+\):$/);
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(output).toContain(`\nFailed (${failed.length}):\n`);
    // On failure, the whole report: why each check failed.
    for (const line of failed) expect(line, output).toMatch(/^ {2}- .*\/pets\/(\{petId\}|\S+)/);
    expect(output).toMatch(
      new RegExp(
        `\n${ALL_CHECKS.length} checks: ${ALL_CHECKS.length - failed.length - NOT_GIVEN} passed, ${failed.length} failed, ${NOT_GIVEN} skipped\\.\n`,
      ),
    );
    expect(output).toMatch(/ok {3}POST \/pets answers its example requests with 201/);
    // A whole run of the suite, some hundred requests on this machine's cores: past 30 s at load 12.
    // It is waited for; the timeout only ends one that hangs.
  }, 120_000);

  it('creates nothing with --read-only, and reports each check it skipped with why', async () => {
    const client = contractTarget({ baseUrl: api.gateway.baseUrl, apiKey: api.apiKey }).api;
    const before = (await client.post('/pets', { name: smokeName('before'), categoryId: 1 })).json as Pet;

    const { code, output } = await smoke(['--url', api.gateway.baseUrl, '--key', api.apiKey, '--read-only']);

    const after = (await client.post('/pets', { name: smokeName('after'), categoryId: 1 })).json as Pet;
    expect(code).toBe(0);
    expect(after.id).toBe(before.id + 1);
    expect(output).toContain('read-only: the checks that create pets are skipped');
    const skipped = CREATING.length + NOT_GIVEN;
    expect(output).toContain(
      `\n${ALL_CHECKS.length} checks: ${ALL_CHECKS.length - skipped} passed, 0 failed, ${skipped} skipped.`,
    );
    expect(sectionOf(output, /^Skipped \(\d+\)/)).toEqual([
      `  - ${CREATING.length} because ${READ_ONLY_REASON}`,
      `  - ${NEEDS_AN_ORIGIN} because ${NO_ORIGIN_REASON}`,
      `  - ${NEEDS_A_THROTTLE_KEY} because ${NO_THROTTLE_KEY_REASON}`,
    ]);
    expect(output).toMatch(/ok {3}GET \/pets\/\{petId\} answers 404 NOT_FOUND where no pet has the id/);
    expect(output).toContain(`SKIP POST /pets answers its example requests with 201 (${READ_ONLY_REASON})`);
    expect(output).toContain(
      `SKIP lets an allowed origin read errors, a refused key included (${NO_ORIGIN_REASON})`,
    );
    expect(output).not.toMatch(/ok {3}POST \/pets answers its example/);
    // The same: a whole run of the suite.
  }, 120_000);

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

  it("finds npm start's port, key and origins in the lock of its data directory, whatever PORT the shell says", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'petstore-smoke-'));
    // npm start's CORS, any origin; this process holds the directory as npm start would.
    const open = await startLocalApi('smoke-from-lock', { corsOrigins: ['*'] });
    const lock = await lockDataDir({
      dataDir,
      port: open.gateway.port,
      apiKey: open.apiKey,
      corsOrigins: ['*'],
    });
    try {
      const { code, output } = await smoke(['--read-only'], {
        PETSTORE_DATA_DIR: dataDir,
        PORT: String(await freePort()),
      });

      expect(output).toContain(`Contract suite against ${open.gateway.baseUrl}, read-only`);
      expect(output.split('\n').filter((line) => /^\s+FAIL /.test(line))).toEqual([]);
      expect(code).toBe(0);
    } finally {
      lock.release();
      await open.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('stops at once, saying so, when no API answers at the URL', async () => {
    const url = `http://127.0.0.1:${await freePort()}/v1`;

    const { code, output } = await smoke(['--url', url, '--key', 'psk_any']);

    expect(code).toBe(2);
    expect(output.trim()).toBe(
      `Cannot run the smoke suite: No API answers at ${url} (ECONNREFUSED): start it with npm start, or give --url and --key of a stage`,
    );
  });
});

/**
 * The files of the working tree a clone would have (tracked, or new and not ignored), except
 * test/, copied into a temporary directory; node_modules is linked, not copied.
 */
const copyWithoutTests = (): string => {
  const copy = mkdtempSync(join(tmpdir(), 'petstore-smoke-without-tests-'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && !file.startsWith('test/') && existsSync(join(PROJECT_ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(PROJECT_ROOT, file), join(copy, file));
  }
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
};

describe('npm run smoke on a real plan', () => {
  it("passes on staging's standard key (5 a second, burst 10), keeping to the plan its answers name: nothing refused, nothing sent beyond it", async () => {
    // What `npm run smoke --url --key` runs (tools/smoke/smoke.ts), in this process, so that the
    // suite and the gateway's plan share a clock of the test's: the pace is kept in its time, not
    // in real seconds (about 40 of them at 5 a second).
    const clock = new VirtualClock();
    const admitted: number[] = [];
    const refused: string[] = [];
    const fairUse = new (class extends FairUse {
      override admit(caller: Caller): Admission {
        const admission = super.admit(caller);
        if (admission.admitted) admitted.push(clock.now());
        else refused.push(admission.refusal);
        return admission;
      }
    })(LOCAL_PLANS, clock.now);
    const standard = await startLocalApi('smoke-standard', {
      plans: LOCAL_PLANS,
      keyPlan: 'standard',
      fairUse,
    });
    vi.stubGlobal('fetch', clock.fetch);
    try {
      const options = { baseUrl: standard.gateway.baseUrl, apiKey: standard.apiKey };
      await assertKeyAccepted(options);
      const target = contractTarget({ ...options, clock });
      const report = formatReport(await runSuite(CONTRACT_SUITE, target), target.baseUrl);

      expect(report).toContain(
        `\n${ALL_CHECKS.length} checks: ${ALL_CHECKS.length - NOT_GIVEN} passed, 0 failed`,
      );
      expect(refused).toEqual([]);
      // More than the burst, so the pace was needed; and in any stretch of the clock, no more
      // than the burst and what the rate refills meanwhile.
      expect(admitted.length).toBeGreaterThan(2 * 10);
      for (let first = 0; first < admitted.length; first += 1) {
        for (let last = first; last < admitted.length; last += 1) {
          const seconds = ((admitted[last] as number) - (admitted[first] as number)) / 1_000;
          expect(last - first + 1).toBeLessThanOrEqual(10 + 5 * seconds);
        }
      }
    } finally {
      vi.unstubAllGlobals();
      await standard.close();
    }
  }, 120_000);

  it('stops at once, in one sentence, when the key’s quota runs out', async () => {
    // 5 a day, at a rate the suite never waits for: the quota, not the pace, is what it meets.
    const plans = {
      ...TEST_PLANS,
      plans: { ...TEST_PLANS.plans, fiveaday: { ...ROOMY, quota: { limit: 5, period: 'DAY' as const } } },
    };
    const tight = await startLocalApi('smoke-quota', { plans, keyPlan: 'fiveaday' });
    try {
      const { code, output } = await smoke(['--url', tight.gateway.baseUrl, '--key', tight.apiKey]);

      expect(code).toBe(2);
      expect(output.trim()).toBe(
        `Stopped: the key's plan quota at ${tight.gateway.baseUrl} is used up (429 QUOTA_EXCEEDED), so every further request would be refused for that reason alone; run again once the quota resets (00:00 UTC, or the 1st of the month for a monthly plan), or give a key on a plan with quota left.`,
      );
    } finally {
      await tight.close();
    }
  }, 60_000);

  it("says, on a pipeline's first run, that the stage has no key yet and how to make one", async () => {
    const { code, output } = await smoke(['--url', api.gateway.baseUrl, '--key', '']);

    expect(code).toBe(2);
    expect(output.trim()).toBe(
      `Cannot run the smoke suite: No API key for ${api.gateway.baseUrl}: a new stage has none until one is made. Make one on the stage's smoke plan, npm run -s keys -- create smoke --plan smoke --stage <stage> --table <the stack output ApiKeysTableName>, give it as --key (or API_KEY; in the pipeline, the environment's secret SMOKE_API_KEY), and run this again`,
    );
  });
});

describe('npm run smoke, shipped without the tests', () => {
  it('imports nothing from test/ and nothing from the test runner', async () => {
    const { metafile } = await build({
      absWorkingDir: PROJECT_ROOT,
      entryPoints: ['tools/smoke/smoke.ts'],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });

    const inputs = Object.keys(metafile.inputs);
    const packages = Object.values(metafile.inputs).flatMap(({ imports }) =>
      imports.filter((imported) => imported.external).map((imported) => imported.path),
    );
    expect(inputs).toContain('tools/contract/suite.ts');
    expect(inputs.filter((input) => input.startsWith('test/'))).toEqual([]);
    expect(packages).toContain('yaml');
    expect(packages.filter((name) => /^(@vitest\/|vitest($|\/))/.test(name))).toEqual([]);
  });

  it('runs the contract suite from a copy of the tree with test/ deleted', async () => {
    await api.client.post('/pets', { name: smokeName('resident'), categoryId: 1 });
    const copy = copyWithoutTests();
    try {
      expect(existsSync(join(copy, 'test'))).toBe(false);
      expect(existsSync(join(copy, 'tools/smoke/smoke.ts'))).toBe(true);

      const { code, output } = await smokeProcess(
        ['--url', api.gateway.baseUrl, '--key', api.apiKey, '--read-only'],
        copy,
      );

      const skipped = CREATING.length + NOT_GIVEN;
      expect(output).toContain(`Contract suite against ${api.gateway.baseUrl}, read-only`);
      expect(output).toContain(
        `\n${ALL_CHECKS.length} checks: ${ALL_CHECKS.length - skipped} passed, 0 failed, ${skipped} skipped.`,
      );
      expect(code).toBe(0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    // A Node start that compiles the copied tree afresh, then a whole run of the suite: past 30 s
    // at load 22. It is waited for; the timeout only ends one that hangs.
  }, 120_000);
});
