import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire, SourceMap, type SourceMapping } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { decode } from '@jridgewell/sourcemap-codec';
import { App, Stack } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizer, authorizerFunction } from '#functions/authorizer';
import { getPetFunction } from '#functions/get-pet';
import { OPERATIONS } from '#functions/operations';
import { ESM_REQUIRE_BANNER, esbuildOptions, NODE_TARGET } from '#infra/bundling';
import { nodejsBundling } from '#infra/constructs/api-function';
import { lambdaEntry } from '#infra/lambda-entries';
import { keepOwnSources } from '#infra/own-sources-map';
import { PROJECT_ROOT } from '#infra/project-root';
import { benchTargets, childEnvironment } from '../../bench/targets';
import { synthStages, testOutdir } from '../support/pet-store-app';
import { functionId } from '../support/template-queries';

const require = createRequire(import.meta.url);

/** A stack to hand to CDK's own code, in an App whose assembly directory the run removes. */
const scratchStack = () => new Stack(new App({ outdir: testOutdir() }));

/**
 * NodejsFunction's own bundling steps for `entry`, writing to `outputDir`. `Bundling` is not part
 * of aws-cdk-lib's public API, so it is loaded by file; if an upgrade moves it, this test fails
 * loudly rather than silently comparing nothing.
 */
const nodejsFunctionSteps = (
  entry: string,
  outputDir = '/out',
): { type: string; command?: string[]; commands?: string[] }[] => {
  const libDir = dirname(require.resolve('aws-cdk-lib/package.json'));
  const { Bundling } = require(join(libDir, 'aws-lambda-nodejs/lib/bundling.js'));
  const bundling = new Bundling(scratchStack(), {
    ...nodejsBundling(),
    entry: join(PROJECT_ROOT, entry),
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
  });
  return bundling.createBundlingSteps(scratchStack(), {
    inputDir: '/in',
    outputDir,
    pathJoin: posix.join,
    esbuildRunner: ['esbuild'],
    createFileOps: () => [],
  });
};

/** NodejsFunction's translation of its props into esbuild CLI arguments: `esbuild --bundle <entry> <options…>`, the options. */
const nodejsFunctionEsbuildArgs = (entry: string): string[] =>
  nodejsFunctionSteps(entry)[0]?.command?.slice(3) ?? [];

const kebab = (key: string): string => key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** The esbuild CLI equivalent of build options (the entry and `--bundle` left out, as above). */
const cliArgs = (options: BuildOptions, outfile: string): string[] =>
  Object.entries({ ...options, outfile }).flatMap(([key, value]): string[] => {
    if (key === 'entryPoints' || key === 'bundle') return [];
    if (key === 'banner') return Object.entries(value).map(([type, text]) => `--banner:${type}=${text}`);
    if (key === 'external') return (value as string[]).map((name) => `--external:${name}`);
    if (key === 'alias') return Object.entries(value).map(([from, to]) => `--alias:${from}=${to}`);
    if (Array.isArray(value)) return [`--${kebab(key)}=${value.join(',')}`];
    if (value === true) return [`--${kebab(key)}`];
    return [`--${kebab(key)}=${String(value)}`];
  });

describe('bundling options', () => {
  it('builds ESM for Node 24 with the createRequire banner, minified, with source maps and the AWS SDK inside', () => {
    expect(esbuildOptions(lambdaEntry(getPetFunction), 'dist/get-pet.mjs')).toMatchObject({
      entryPoints: [lambdaEntry(getPetFunction)],
      outfile: 'dist/get-pet.mjs',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      mainFields: ['module', 'main'],
      banner: {
        js: "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
      },
      minify: true,
      sourcemap: true,
      external: [],
      alias: {
        'node:stream/web': './infra/bundling-shims/stream-web.ts',
        '@aws-sdk/credential-provider-node': './infra/bundling-shims/credential-provider-node.ts',
        'node:http': './infra/bundling-shims/http.ts',
        'node:zlib': './infra/bundling-shims/zlib.ts',
      },
    });
  });

  it('gives NodejsFunction the same options as props, and never Docker', () => {
    const { commandHooks: _cutsTheMap, ...props } = nodejsBundling();

    expect(props).toEqual({
      format: OutputFormat.ESM,
      target: NODE_TARGET,
      mainFields: ['module', 'main'],
      banner: ESM_REQUIRE_BANNER,
      minify: true,
      sourceMap: true,
      sourcesContent: false,
      externalModules: [],
      esbuildArgs: {
        '--alias': [
          'node:stream/web=./infra/bundling-shims/stream-web.ts',
          '@aws-sdk/credential-provider-node=./infra/bundling-shims/credential-provider-node.ts',
          'node:http=./infra/bundling-shims/http.ts',
          'node:zlib=./infra/bundling-shims/zlib.ts',
        ],
      },
      logLevel: 'warning',
      forceDockerBundling: false,
    });
  });

  it.each(OPERATIONS.map((fn) => lambdaEntry(fn)))(
    'makes NodejsFunction run esbuild on %s with exactly the options the esbuild API gets',
    (entry) => {
      const fromCdk = nodejsFunctionEsbuildArgs(entry);
      const fromApi = cliArgs(esbuildOptions(entry, '/out/index.mjs'), '/out/index.mjs');

      expect([...fromCdk].sort()).toEqual([...fromApi].sort());
    },
  );

  it("puts in place of node:stream/web a module whose ReadableStream is that module's own", async () => {
    const shim = await import('#infra/bundling-shims/stream-web');
    const { ReadableStream } = await import('node:stream/web');

    expect(shim.ReadableStream).toBe(ReadableStream);
  });

  it('puts in place of node:http the very module, its default export and the names the SDK takes from it', async () => {
    const shim = await import('#infra/bundling-shims/http');
    const http = require('node:http');

    expect(shim.default).toBe(http);
    expect(shim.Agent).toBe(http.Agent);
    expect(shim.request).toBe(http.request);
  });

  it("puts in place of node:zlib a crc32 that is Node's own", async () => {
    const { crc32 } = await import('#infra/bundling-shims/zlib');
    const zlib = require('node:zlib');
    const bytes = Buffer.from('{"TableName":"pets","Key":{"id":{"N":"1"}}}');

    expect(crc32(bytes)).toBe(zlib.crc32(bytes));
    expect(crc32(bytes, 12345)).toBe(zlib.crc32(bytes, 12345));
    expect(crc32('text')).toBe(zlib.crc32('text'));
  });

  it("puts in place of the SDK's default credential chain its first link: the environment's credentials", async () => {
    const { defaultProvider } = await import('#infra/bundling-shims/credential-provider-node');
    const variables = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;
    const before = variables.map((name) => process.env[name]);
    try {
      process.env.AWS_ACCESS_KEY_ID = 'AKIDFROMENVIRONMENT1';
      process.env.AWS_SECRET_ACCESS_KEY = 'secret';
      process.env.AWS_SESSION_TOKEN = 'token';
      await expect(defaultProvider()()).resolves.toMatchObject({
        accessKeyId: 'AKIDFROMENVIRONMENT1',
        secretAccessKey: 'secret',
        sessionToken: 'token',
      });
      for (const name of variables) delete process.env[name];
      await expect(defaultProvider()()).rejects.toMatchObject({
        name: 'CredentialsProviderError',
        message: 'Unable to find environment variable credentials.',
      });
    } finally {
      variables.forEach((name, index) => {
        const value = before[index];
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      });
    }
  });
});

describe('the map beside each bundle', () => {
  const entry = lambdaEntry(getPetFunction);
  let dir: string;
  /** The map esbuild writes, and the same map cut down to the project's own sources. */
  let esbuildMap: string;
  let ownMap: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'own-sources-map-'));
    await build({
      ...esbuildOptions(join(PROJECT_ROOT, entry), join(dir, 'index.mjs')),
      absWorkingDir: PROJECT_ROOT,
    });
    esbuildMap = readFileSync(join(dir, 'index.mjs.map'), 'utf8');
    copyFileSync(join(dir, 'index.mjs.map'), join(dir, 'own.map'));
    keepOwnSources(join(dir, 'own.map'));
    ownMap = readFileSync(join(dir, 'own.map'), 'utf8');
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("maps every place of the project's sources as esbuild's map does, named from the project root, and no other", () => {
    const full = new SourceMap(JSON.parse(esbuildMap));
    const own = new SourceMap(JSON.parse(ownMap));
    const places = decode(JSON.parse(esbuildMap).mappings).flatMap((segments, line) =>
      segments.map(([column]) => [line, column] as const),
    );
    const fromProject = (source: string) => relative(PROJECT_ROOT, resolve(dir, source));

    const differences = places.filter(([line, column]) => {
      const before: Partial<SourceMapping> = full.findEntry(line, column);
      const after: Partial<SourceMapping> = own.findEntry(line, column);
      const source = before.originalSource === undefined ? undefined : fromProject(before.originalSource);
      if (source === undefined || source.startsWith('node_modules/'))
        return after.originalSource !== undefined;
      return (
        after.originalSource !== source ||
        after.originalLine !== before.originalLine ||
        after.originalColumn !== before.originalColumn
      );
    });

    expect(places.length).toBeGreaterThan(10_000);
    expect(differences).toEqual([]);
    expect(JSON.parse(ownMap).sources).toContain('shared/adapters/dynamodb/stored-items.ts');
    expect(ownMap.length).toBeLessThan(esbuildMap.length / 10);
  });

  it('is cut down by the command NodejsFunction runs after esbuild, in the project root', () => {
    const hooks = nodejsFunctionSteps(entry, dir).filter((step) => step.type === 'shell');

    for (const command of hooks.flatMap((step) => step.commands ?? [])) {
      const run = spawnSync('bash', ['-c', command], { cwd: PROJECT_ROOT, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
    }

    expect(readFileSync(join(dir, 'index.mjs.map'), 'utf8')).toBe(ownMap);
  }, 30_000);
});

describe("the bench's functions", () => {
  const { production } = synthStages().templates;
  const functions = [
    ...OPERATIONS.map((root) => ({
      root,
      description: `${root.operation.method} ${root.operation.path} (${root.operation.operationId})`,
    })),
    { root: authorizerFunction, description: authorizer.description },
  ];

  it.each(functions.map(({ root, description }) => [root.name, root, description] as const))(
    '%s runs with the variables the stack gives it in production, and no other',
    (_name, root, description) => {
      const fn = production.findResources('AWS::Lambda::Function')[functionId(production, description)];
      const deployed: Record<string, unknown> = fn?.Properties.Environment.Variables ?? {};
      const names = { pets: 'p', counters: 'c', apiKeys: 'k', idempotency: 'i' };
      const target = benchTargets('key').find((candidate) => candidate.entry === lambdaEntry(root));

      const bench = childEnvironment({ name: root.name, tables: root.tables, ...target }, 'http://db', names);

      // What Lambda itself sets, and DynamoDB Local's endpoint, are the bench's own.
      const own = /^(PATH|AWS_.*|DYNAMODB_ENDPOINT)$/;
      expect(
        Object.keys(bench)
          .filter((name) => !own.test(name))
          .sort(),
      ).toEqual(Object.keys(deployed).sort());
      for (const [name, value] of Object.entries(deployed)) {
        if (typeof value === 'string') expect(bench[name], name).toBe(value);
      }
    },
  );
});
