import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { closedPort } from '../support/fake-aws';

/**
 * The npm scripts as processes, as a user meets them: usage for --help, one sentence and exit 2
 * for what the user can fix, and nothing before it (no stack trace, no notice from the AWS SDK
 * about this machine's Node.js).
 */

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

const run = (command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Exit> =>
  new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });

const SCRIPTS: Record<string, string> = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'),
).scripts;

/**
 * The scripts that run one of the project's own entry points, as `[name, node args]`: the ones that
 * read arguments. Scripts running the same entry (`start` and `dev`) are run once.
 */
const ENTRY_SCRIPTS: [string, string[]][] = [];
for (const [name, line] of Object.entries(SCRIPTS)) {
  const [first, ...rest] = line.split(' ');
  const args =
    first === 'tsx'
      ? ['--import', 'tsx', ...rest]
      : first === 'node' && rest[0] === '--import' && rest[1] === 'tsx'
        ? rest
        : undefined;
  if (args && !ENTRY_SCRIPTS.some(([, known]) => known[2] === args[2])) ENTRY_SCRIPTS.push([name, args]);
}

/** No AWS setup and no state of this machine: what a new user's shell has. */
/** The directories the tests make, removed when they are done. */
const made: string[] = [];
const scratchDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const scratchEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: scratchDir('petstore-home-'),
  ...extra,
});

/** Some processes at once: each is a Node.js start with tsx, most of a CPU-second under load. */
const limit = pLimit(3);

describe('every npm script that takes arguments', () => {
  const dataDir = join(scratchDir('petstore-help-'), 'data');
  const generated = ['docs/openapi.yaml', 'docs/costs.md', 'docs/client/pet-store-api.d.ts'].map((file) =>
    join(PROJECT_ROOT, file),
  );
  const modified = () => generated.map((file) => statSync(file).mtimeMs);

  it('is found in package.json: npm start and the operator commands among them', () => {
    expect(ENTRY_SCRIPTS.map(([name]) => name)).toEqual(
      expect.arrayContaining(['start', 'deploy', 'outputs', 'verify', 'keys', 'smoke', 'seed', 'bench']),
    );
  });

  it('prints its usage for --help (npm start -h too) and exits 0, starting nothing and writing nothing', async () => {
    const before = modified();
    const runs = await Promise.all(
      [
        ...ENTRY_SCRIPTS.map(([name, args]) => [name, [...args, '--help']] as const),
        ['start -h', ['--import', 'tsx', 'tools/local/start.ts', '-h']] as const,
      ].map(([name, args]) =>
        limit(
          async () =>
            [
              name,
              await run(process.execPath, args, scratchEnv({ PETSTORE_DATA_DIR: dataDir, PORT: '3999' })),
            ] as const,
        ),
      ),
    );

    for (const [name, exit] of runs) {
      expect({ name, code: exit.code, stderr: exit.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(exit.stdout, name).toMatch(/^Usage/);
    }
    expect(existsSync(dataDir)).toBe(false);
    expect(modified()).toEqual(before);
    // Several Node.js starts with tsx at once: seconds idle, a minute or more under load.
  }, 240_000);

  it('npm start -- --help lists PORT, PETSTORE_DATA_DIR and every other setting it reads', async () => {
    const exit = await run(
      process.execPath,
      ['--import', 'tsx', 'tools/local/start.ts', '--help'],
      scratchEnv(),
    );

    for (const setting of [
      'PORT',
      'PETSTORE_DATA_DIR',
      'PETSTORE_API_KEY',
      'PETSTORE_CORS_ORIGINS',
      'DYNAMODB_ENDPOINT',
    ])
      expect(exit.stdout).toMatch(new RegExp(`^ {2}${setting} +\\S`, 'm'));
  }, 60_000);
});

describe('npm run deploy on a machine that never signed in to AWS', () => {
  it('exits 2 in about the time its usage takes, in one sentence naming aws sso login, AWS_PROFILE and AWS_REGION, before synthesizing', async () => {
    const deploy = ['run', '-s', 'deploy', '--', '--stage', 'dev-nc'];
    // What the same command takes to print its usage, measured beside it: a Node.js start with tsx.
    const usage = await run('npm', [...deploy, '--help'], scratchEnv());
    const exit = await run('npm', deploy, scratchEnv());
    const usageAgain = await run('npm', [...deploy, '--help'], scratchEnv());

    expect(exit.code).toBe(2);
    expect(exit.stdout).toBe('');
    const lines = exit.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Cannot deploy: .*aws sso login.*AWS_PROFILE.*AWS_REGION/);
    expect(exit.stderr).not.toContain('> cdk');
    // The time a user waits: a Node.js start with tsx and the SDK, the credential chain's look for
    // credentials and a region, and no synthesis (tens of seconds): 2 to 4 s here on an idle
    // machine. Held to the usage's time in the same moment, so a loaded machine slows both alike.
    expect(usage.code).toBe(0);
    expect(exit.ms).toBeLessThan(3 * Math.max(usage.ms, usageAgain.ms));
  }, 60_000);
});

describe('the operator commands, with AWS out of reach', () => {
  it.each([
    ['deploy', ['tools/deploy/deploy.ts', 'deploy', '--stage', 'dev-ann']],
    ['verify', ['tools/verify/verify.ts', '--stage', 'dev-ann']],
    [
      'keys',
      ['tools/keys/keys.ts', 'list', '--stage', 'dev-ann', '--table', 'PetStore-dev-ann-TablesApiKeys-1'],
    ],
    ['outputs', ['tools/deploy/outputs.ts', '--stage', 'dev-ann']],
  ])(
    '%s says so in one line, with no stack trace and no SDK notice before it',
    async (_name, args) => {
      const env = scratchEnv({
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_ENDPOINT_URL: `http://127.0.0.1:${await closedPort()}`,
        AWS_MAX_ATTEMPTS: '1',
      });

      const exit = await run(process.execPath, ['--import', 'tsx', ...args], env);

      expect(exit.code).toBe(2);
      expect(exit.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/AWS cannot be reached while .+ \(ECONNREFUSED\)/),
      ]);
    },
    60_000,
  );
});
