import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectConfiguration } from 'vitest/config';
import { findChromium, HOW_TO_INSTALL } from './test/support/browser.ts';

/**
 * First in every project: the run's own temporary directory, checked empty when the last project
 * ends (its other global setups torn down before it), so no test leaves anything behind.
 */
const tempDirSetup = 'test/support/temp-dir-global-setup.ts';
const dynamoDbSetup = [tempDirSetup, 'test/support/dynamodb-global-setup.ts'];
/** Test CDK apps synthesize into a directory the run removes (test/support/pet-store-app.ts). */
const cdkOutdirSetup = ['test/support/cdk-outdir-global-setup.ts'];
const UNDER_LOAD = 'test/http/under-load.test.ts';
/**
 * Unit files that make the process's invoke store the multi-invocation one (a local gateway, or
 * the logger's test of it): in the shared module graph, the handlers other files call directly
 * would then find no invocation context (as the run on Node 24 showed).
 */
const OWN_MODULE_GRAPH = ['test/unit/invocation-logger.test.ts', 'test/unit/local-gateway.test.ts'];
/**
 * HTTP files that replace a module (`vi.mock`): in a module graph shared with other files the
 * replacement would be missed, or would leak into the next file.
 */
const MOCKS_A_MODULE = ['test/http/contract.test.ts'];
/** What every HTTP file needs: the run's DynamoDB Local, a directory for CDK apps, time for servers. */
const httpFiles = {
  globalSetup: [...dynamoDbSetup, ...cdkOutdirSetup],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

// The AWS SDK warns once per process that this machine's Node.js is older than the Lambda's; the
// tests know. Set before the global setups create their first client, in this process and, through
// the environment, in every process the tests start.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * The browser tests need a real Chromium. In CI they always run (a missing browser fails them);
 * elsewhere without one they are left out, and the run says so.
 */
const browserTests = (): TestProjectConfiguration[] => {
  const project: TestProjectConfiguration = {
    extends: true,
    test: {
      name: 'browser',
      include: ['test/browser/**/*.test.ts'],
      globalSetup: dynamoDbSetup,
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  };
  if (process.env.CI === 'true' || findChromium()) return [project];
  console.warn(`\nThe browser tests did not run: no Chromium found; ${HOW_TO_INSTALL}.\n`);
  return [];
};

export default defineConfig({
  test: {
    // Vitest leaves one core to itself, which on a 2-core machine runs one file at a time; most
    // files here wait on DynamoDB Local, a server or a child process, so two at a time take
    // 86 s instead of 110 s there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Transformed modules kept on disk (node_modules/.experimental-vitest-cache), keyed by their
    // content and the configuration, so a run transforms only what changed since the last (Vitest
    // 5's default). Not in CI: a clean clone has nothing to reuse.
    experimental: { fsModuleCache: process.env.CI !== 'true' },
    // A safety net only: every test builds its clients for DynamoDB Local with dummy credentials,
    // so nothing looks for AWS credentials; were one to, it would not find the instance metadata.
    env: { AWS_EC2_METADATA_DISABLED: 'true' },
    coverage: {
      provider: 'v8',
      include: ['functions/**', 'shared/**', 'infra/**', 'tools/**'],
      reporter: ['text-summary', 'html'],
    },
    projects: [
      {
        extends: true,
        // The unit files share one module graph per worker: each restores what it stubs, spies on
        // or fakes (afterEach), and none mocks a module; loading shared/ and the SDK once per
        // worker rather than per file takes the project's CPU time from 24 s to 10 s.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: OWN_MODULE_GRAPH,
          isolate: false,
          globalSetup: [tempDirSetup],
        },
      },
      {
        extends: true,
        // Overlapping invocations need the process's first invoke store to be the multi-invocation
        // one (tools/lambda/invoke-store.ts makes it on load, as the local server does before any
        // SDK call); in a shared module graph another file's SDK call may have made a single one first.
        test: { name: 'unit-isolated', include: OWN_MODULE_GRAPH, globalSetup: [tempDirSetup] },
      },
      {
        extends: true,
        // In-process: the adapters and the functions called directly, as Lambda calls them, one
        // invocation at a time. No file here loads the local gateway (the files that go through it
        // are in test/http), so the files share one module graph per worker, as the unit files do:
        // loading the SDK, middy and Powertools once per worker rather than per file takes the
        // project from about 128 CPU-s to 93.
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          isolate: false,
          globalSetup: [...dynamoDbSetup, ...cdkOutdirSetup, 'test/support/lambda-node-global-setup.ts'],
          // Every case waits on DynamoDB Local, a process of its own that a loaded machine slows: a
          // walk beside changes (some hundred calls) took over 5 s, Vitest's default, at load 12. As
          // in the HTTP projects, the timeout only ends a case that hangs.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'http',
          include: ['test/http/**/*.test.ts'],
          exclude: [UNDER_LOAD, ...MOCKS_A_MODULE],
          ...httpFiles,
          // Every file runs the local gateway, so all share one module graph per worker, the
          // multi-invocation store made first.
          isolate: false,
          setupFiles: ['test/support/invoke-store-setup.ts'],
        },
      },
      { extends: true, test: { name: 'http-isolated', include: MOCKS_A_MODULE, ...httpFiles } },
      {
        extends: true,
        // A burst of 1,500 requests from a child process takes both cores: run beside the other
        // files it would starve the ones that time a deadline, so it runs after every other project.
        test: {
          name: 'http-load',
          include: [UNDER_LOAD],
          ...httpFiles,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        // One CDK app build per worker, shared by the template test files (see test/support/pet-store-app.ts).
        // The run's DynamoDB Local and the multi-invocation store are for the one file that holds
        // the local gateway to the synthesized gateway answers (gateway-answers.test.ts): in the http
        // project, a worker built the app for it alone.
        test: {
          name: 'infra',
          // V8 without helper threads (concurrent GC, background compilation): the CDK and the
          // CloudFormation schema validation (WebAssembly, a first run of about 10 CPU-s) make
          // them busy, and on 2 cores they only compete with the other worker. The project alone:
          // 50-56 CPU-s rather than 55-64, and 3 s sooner, in four interleaved pairs of runs.
          execArgv: ['--single-threaded'],
          include: ['test/infra/**/*.test.ts'],
          globalSetup: [...dynamoDbSetup, ...cdkOutdirSetup],
          setupFiles: ['test/support/invoke-store-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          isolate: false,
        },
      },
      ...browserTests(),
    ],
  },
});
